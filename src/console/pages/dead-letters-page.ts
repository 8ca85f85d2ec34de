import type { DeadLetterRow } from '../console-options.js';
import { html } from '../html.js';
import { when } from '../format.js';
import { actionForm, layout, type PageContext } from './layout.js';

export function deadLettersPage(context: PageContext, rows: readonly DeadLetterRow[]): string {
  const body =
    rows.length === 0
      ? html`<p>No dead letters.</p>`
      : html`<table class="dead-letters">
          <thead>
            <tr>
              <th scope="col">Failed (UTC)</th>
              <th scope="col">Event</th>
              <th scope="col">Key</th>
              <th scope="col">Runs</th>
              <th scope="col">Last error</th>
              <th scope="col">Replay</th>
            </tr>
          </thead>
          <tbody>
            ${rows.map(
              (row) =>
                html`<tr data-key="${row.key}">
                  <td>${when(row.failedAt ?? row.receivedAt)}</td>
                  <td>${row.name}</td>
                  <td><code>${row.key}</code></td>
                  <td class="num">${row.attemptsMade}</td>
                  <td>${row.failedReason}</td>
                  <td>${actionForm(context, `/actions/dead-letters/${encodeURIComponent(row.key)}/replay`, 'Replay')}</td>
                </tr>`,
            )}
          </tbody>
        </table>`;
  return layout(
    context,
    'Dead letters',
    '/dead-letters',
    html`<p>
        Durable jobs that failed their last run. Replay puts one back in the queue with fresh runs; the worker claims its dedupe key as for
        any job.
      </p>
      ${body}`,
  );
}
