import type { HeldEvent } from '../../book/payment-book.js';
import { html, type SafeHtml } from '../html.js';
import { money, when } from '../format.js';
import { actionForm, type PageContext } from './layout.js';

/** Held events with Release (needs the receiver) and Dismiss (with a note). */
export function heldTable(context: PageContext, held: readonly HeldEvent[], canRelease: boolean): SafeHtml {
  if (held.length === 0) return html`<p>No held events.</p>`;
  return html`<table class="held">
    <thead>
      <tr>
        <th scope="col">Held (UTC)</th>
        <th scope="col">Resource</th>
        <th scope="col">Event</th>
        <th scope="col">Amount</th>
        <th scope="col">Violations</th>
        <th scope="col">State</th>
        <th scope="col">Decide</th>
      </tr>
    </thead>
    <tbody>
      ${held.map((h) => {
        const id = encodeURIComponent(h.heldId);
        const amount = h.event.kind === 'transaction' ? h.event.transaction.amountInCents : h.event.transfer.amountInCents;
        const note = html`<label for="note-${h.heldId}">Note</label><input id="note-${h.heldId}" name="note" required maxlength="500" />`;
        return html`<tr data-held-id="${h.heldId}">
          <td>${when(h.heldAt)}</td>
          <td><a href="${context.base}/resources/${encodeURIComponent(h.resourceId)}">${h.resourceId}</a></td>
          <td>${h.event.name}</td>
          <td class="num">${money(amount)}</td>
          <td>${h.violations.map((v) => html`<span class="violation">${v.reason}</span> ${v.message} `)}</td>
          <td>${h.state}</td>
          <td class="decide">
            ${canRelease ? actionForm(context, `/actions/held/${id}/release`, 'Release') : ''}${actionForm(context, `/actions/held/${id}/dismiss`, 'Dismiss', note)}
          </td>
        </tr>`;
      })}
    </tbody>
  </table>`;
}
