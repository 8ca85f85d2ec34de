import type { JournalEntry, JournalQuery } from '../../journal/delivery-journal.js';
import { html, type SafeHtml } from '../html.js';
import { money, when } from '../format.js';
import { deliveryState } from '../client/delivery-state.js';
import { rowOf } from '../client/row-of.js';
import type { SandboxDelivery } from '../console-sandbox.js';
import { groupDeliveries, latencyOf, type DeliveryGroup } from './delivery-groups.js';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The attempts folded inside an event's row: each delivery the receiver answered, and the gateway's own attempts. */
function attemptsCell(base: string, group: DeliveryGroup): SafeHtml {
  const received = [...group.entries].reverse();
  const faults = group.gateway.filter((a) => a.entryId === undefined).length;
  const summary = `${plural(received.length, 'delivery', 'deliveries')}${group.gateway.length === 0 ? '' : `, ${plural(group.gateway.length, 'gateway attempt', 'gateway attempts')}`}`;
  const ms = (value: number | undefined) => (value === undefined ? '' : ` · ${value} ms`);
  return html`<details class="attempts" data-faults="${faults}">
    <summary>${summary}</summary>
    <ol class="received">
      ${received.map(
        (e) =>
          html`<li data-entry-id="${e.id}">
            <a href="${base}/deliveries/${encodeURIComponent(e.id)}">${when(e.at)}</a> · answered ${e.status}
            ${e.reason ?? 'handled'}${e.replayOf === undefined ? '' : ' (replay)'}${ms(latencyOf(e))}
          </li>`,
      )}
    </ol>
    ${
      group.gateway.length === 0
        ? ''
        : html`<ol class="gateway" aria-label="Gateway attempts">
            ${group.gateway.map(
              (a) =>
                html`<li data-gateway-delivery="${a.deliveryId}" data-gateway-attempt="${a.attempt}">
                  Gateway ${a.deliveryId} attempt ${a.attempt}: ${a.status === undefined ? (a.error ?? 'no answer') : String(a.status)}
                  ${a.fault === undefined ? '' : html`(fault: ${a.fault}, never reached the receiver)`}${ms(a.durationMs)}
                  ${a.entryId === undefined ? '' : html`→ <a href="${base}/deliveries/${encodeURIComponent(a.entryId)}">receiver entry</a>`}
                </li>`,
            )}
          </ol>`
    }
  </details>`;
}

/**
 * One event's row: its newest delivery's cells, with every delivery of the event folded inside. The client
 * builds the same cells (client/live-rows.ts) for rows that arrive live.
 */
export function deliveryRow(base: string, entry: JournalEntry, group?: DeliveryGroup): SafeHtml {
  const resource = entry.resourceId;
  const state = deliveryState(entry);
  const row = rowOf(entry);
  const folded = group ?? { key: row.key, entries: [entry], gateway: [] };
  return html`<tr
    data-delivery-id="${entry.id}"
    data-status="${entry.status}"
    data-state="${state}"
    data-key="${folded.key}"
    data-count="${folded.entries.length}"
  >
    <td data-label="Received (UTC)"><a href="${base}/deliveries/${encodeURIComponent(entry.id)}">${when(entry.at)}</a></td>
    <td data-label="Event">${row.event ?? '—'}</td>
    <td data-label="Resource">
      ${resource === undefined ? '—' : html`<a href="${base}/resources/${encodeURIComponent(resource)}">${resource}</a>`}
    </td>
    <td data-label="Amount" class="num">${money(entry.amountInCents)}</td>
    <td data-label="State"><span class="pill pill-${state}">${state}</span></td>
    <td data-label="Answer" class="status s${Math.floor(entry.status / 100)}xx">${entry.status}</td>
    <td data-label="Reason">${entry.reason ?? ''}</td>
    <td data-label="Channel">${entry.replayOf !== undefined ? 'replay' : (entry.channel ?? '')}</td>
    <td data-label="Runs" class="num">${entry.attempts.length}</td>
    <td data-label="Attempts">${attemptsCell(base, folded)}</td>
  </tr>`;
}

/**
 * The deliveries table, one row per event (its dedupe key); `live` names the server-sent events URL the
 * client follows. `gateway`: the emulator's deliveries under `pixhook dev`, joined by body.
 */
export function deliveryTable(
  base: string,
  entries: readonly JournalEntry[],
  query: JournalQuery,
  caption: string,
  gateway: readonly SandboxDelivery[] = [],
): SafeHtml {
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
        <th scope="col">Attempts</th>
      </tr>
    </thead>
    <tbody>
      ${groupDeliveries(entries, gateway).map((group) => deliveryRow(base, group.entries[0]!, group))}
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
