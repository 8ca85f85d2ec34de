import type { JournalEntry, JournalQuery } from '../../journal/delivery-journal.js';
import { html, type SafeHtml } from '../html.js';
import { money, when } from '../format.js';
import { deliveryState } from '../client/delivery-state.js';

/** One delivery row; the client builds the same cells (client/live-rows.ts) for rows that arrive live. */
export function deliveryRow(base: string, entry: JournalEntry): SafeHtml {
  const resource = entry.resourceId;
  const state = deliveryState(entry);
  return html`<tr data-delivery-id="${entry.id}" data-status="${entry.status}" data-state="${state}">
    <td data-label="Received (UTC)"><a href="${base}/deliveries/${encodeURIComponent(entry.id)}">${when(entry.at)}</a></td>
    <td data-label="Event">${entry.event ?? '—'}</td>
    <td data-label="Resource">
      ${resource === undefined ? '—' : html`<a href="${base}/resources/${encodeURIComponent(resource)}">${resource}</a>`}
    </td>
    <td data-label="Amount" class="num">${money(entry.amountInCents)}</td>
    <td data-label="State"><span class="pill pill-${state}">${state}</span></td>
    <td data-label="Answer" class="status s${Math.floor(entry.status / 100)}xx">${entry.status}</td>
    <td data-label="Reason">${entry.reason ?? ''}</td>
    <td data-label="Channel">${entry.replayOf !== undefined ? 'replay' : (entry.channel ?? '')}</td>
    <td data-label="Runs" class="num">${entry.attempts.length}</td>
  </tr>`;
}

/** The deliveries table; `live` names the server-sent events URL the client follows. */
export function deliveryTable(base: string, entries: readonly JournalEntry[], query: JournalQuery, caption: string): SafeHtml {
  const live = `${base}/live${queryString(query)}`;
  return html`<table class="deliveries" data-live="${live}" data-base="${base}">
    <caption>
      ${caption}
    </caption>
    <thead>
      <tr>
        <th scope="col">Received (UTC)</th>
        <th scope="col">Event</th>
        <th scope="col">Resource</th>
        <th scope="col">Amount</th>
        <th scope="col">State</th>
        <th scope="col">Answer</th>
        <th scope="col">Reason</th>
        <th scope="col">Channel</th>
        <th scope="col">Runs</th>
      </tr>
    </thead>
    <tbody>
      ${entries.map((entry) => deliveryRow(base, entry))}
    </tbody>
  </table>`;
}

function queryString(query: JournalQuery): string {
  const params = new URLSearchParams();
  for (const name of ['event', 'status', 'reason', 'resource'] as const) {
    const value = query[name];
    if (value !== undefined && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
