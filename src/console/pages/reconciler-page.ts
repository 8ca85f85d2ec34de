import type { ListingReconcilerMetrics, ReconcilerMetrics } from '../../reconcile/index.js';
import type { ReconcilerRun } from '../console-options.js';
import { html } from '../html.js';
import { when } from '../format.js';
import { actionForm, layout, type PageContext } from './layout.js';

export function reconcilerPage(
  context: PageContext,
  metrics: ReconcilerMetrics | ListingReconcilerMetrics,
  runs: readonly ReconcilerRun[],
  canRun: boolean,
): string {
  if ('listed' in metrics) return listingPage(context, metrics, canRun);
  const last = runs[0];
  const body = html`<dl class="facts">
      <dt>Watched</dt>
      <dd data-figure="watched">${metrics.watched}</dd>
      <dt>Due at the last pass</dt>
      <dd data-figure="due">${last?.due ?? '—'}</dd>
      <dt>Recovered</dt>
      <dd data-figure="recovered">${metrics.recovered}</dd>
      <dt>Failed reads (recent passes)</dt>
      <dd data-figure="failed">${runs.reduce((sum, r) => sum + r.failed, 0)}</dd>
      <dt>Checked</dt>
      <dd>${metrics.checked}</dd>
      <dt>Finished</dt>
      <dd>${metrics.finished}</dd>
      <dt>Oldest watched charge</dt>
      <dd>${Math.round(metrics.lagMs / 1000)} s</dd>
      <dt>Paused by the rate limit until</dt>
      <dd>${metrics.pausedUntil > 0 ? when(new Date(metrics.pausedUntil).toISOString()) : '—'}</dd>
    </dl>
    ${canRun ? actionForm(context, '/actions/reconciler/run', 'Run now') : ''}
    <h2>Recent passes</h2>
    ${
      runs.length === 0
        ? html`<p>None recorded.</p>`
        : html`<table>
            <thead>
              <tr>
                <th scope="col">Ended (UTC)</th>
                <th scope="col">Due</th>
                <th scope="col">Checked</th>
                <th scope="col">Recovered</th>
                <th scope="col">Finished</th>
                <th scope="col">Deferred</th>
                <th scope="col">Failed</th>
              </tr>
            </thead>
            <tbody>
              ${runs.map(
                (r) =>
                  html`<tr>
                    <td>${when(r.at)}</td>
                    <td class="num">${r.due}</td>
                    <td class="num">${r.checked}</td>
                    <td class="num">${r.recovered}</td>
                    <td class="num">${r.finished}</td>
                    <td class="num">${r.deferred}</td>
                    <td class="num">${r.failed}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }`;
  return layout(context, 'Reconciler', '/reconciler', body);
}

/** `age` milliseconds as the largest whole unit that fits: 42 s, 7 min, 3 h 5 min, 2 d 4 h. */
function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return `${h} h ${min % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

/** The API Pix listing reconciler: how far its cursor is behind now (the Pix a webhook missed are found within that). */
function listingPage(context: PageContext, metrics: ListingReconcilerMetrics, canRun: boolean): string {
  const body = html`<dl class="facts">
      <dt>Lag (the cursor's age)</dt>
      <dd data-figure="lag">${duration(metrics.lagMs)}</dd>
      <dt>Cursor (UTC)</dt>
      <dd data-figure="cursor">${when(new Date(metrics.cursor).toISOString())}</dd>
      <dt>Listed</dt>
      <dd data-figure="listed">${metrics.listed}</dd>
      <dt>Recovered</dt>
      <dd data-figure="recovered">${metrics.recovered}</dd>
      <dt>Already handled</dt>
      <dd data-figure="duplicates">${metrics.duplicates}</dd>
      <dt>Held by the book</dt>
      <dd data-figure="held">${metrics.held}</dd>
      <dt>Not handled (the cursor waits before them)</dt>
      <dd data-figure="failed">${metrics.failed}</dd>
      <dt>Runs</dt>
      <dd data-figure="runs">${metrics.runs}</dd>
    </dl>
    ${canRun ? actionForm(context, '/actions/reconciler/run', 'Run now') : ''}`;
  return layout(context, 'Reconciler', '/reconciler', body);
}
