import type { ReconcilerMetrics } from '../../reconcile/index.js';
import type { ReconcilerRun } from '../console-options.js';
import { html } from '../html.js';
import { when } from '../format.js';
import { actionForm, layout, type PageContext } from './layout.js';

export function reconcilerPage(context: PageContext, metrics: ReconcilerMetrics, runs: readonly ReconcilerRun[], canRun: boolean): string {
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
