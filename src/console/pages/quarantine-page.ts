import type { QuarantineRow } from '../console-options.js';
import { html } from '../html.js';
import { when } from '../format.js';
import { actionForm, layout, type PageContext } from './layout.js';

/** Each body's Replay reads it again and hands it to the handlers through the normal dedupe; the body stays for a later look. */
export function quarantinePage(
  context: PageContext,
  rows: readonly QuarantineRow[],
  replays: ReadonlyMap<string, string>,
  canReplay: boolean,
): string {
  const body =
    rows.length === 0
      ? html`<p>The quarantine is empty.</p>`
      : html`<table class="quarantine">
          <thead>
            <tr>
              <th scope="col">Received (UTC)</th>
              <th scope="col">Reason</th>
              <th scope="col">What was wrong</th>
              <th scope="col">Size</th>
              <th scope="col">Deliveries</th>
              <th scope="col">Last replay</th>
              <th scope="col">Replay</th>
            </tr>
          </thead>
          <tbody>
            ${rows.map((row) => {
              const last = replays.get(row.id);
              return html`<tr data-quarantine-id="${row.id}">
                <td>${when(row.receivedAt)}</td>
                <td>${row.reason}</td>
                <td>${row.message}</td>
                <td class="num">${row.size} bytes</td>
                <td class="num">${row.deliveries ?? 1}</td>
                <td>
                  ${last === undefined ? '—' : html`<a href="${context.base}/deliveries/${encodeURIComponent(last)}">see the replay</a>`}
                </td>
                <td>
                  ${canReplay ? actionForm(context, `/actions/quarantine/${encodeURIComponent(row.id)}/replay`, 'Replay') : 'needs the receiver'}
                </td>
              </tr>`;
            })}
          </tbody>
        </table>`;
  return layout(
    context,
    'Quarantine',
    '/quarantine',
    html`<p>
        Verified deliveries pixhook could not read as events. A replay is marked as one, goes through the normal dedupe and runs once.
      </p>
      ${body}`,
  );
}
