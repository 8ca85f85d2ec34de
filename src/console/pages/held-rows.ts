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
        // Each form carries its own note and name: the trail says who decided, and why.
        const trail = (verb: string, required: boolean) =>
          html`<label for="${verb}-note-${h.heldId}">Note</label
            ><input id="${verb}-note-${h.heldId}" name="note" ${required ? 'required' : ''} maxlength="500" /><label
              for="${verb}-by-${h.heldId}"
              >By</label
            ><input id="${verb}-by-${h.heldId}" name="by" maxlength="100" autocomplete="name" />`;
        return html`<tr data-held-id="${h.heldId}">
          <td>${when(h.heldAt)}</td>
          <td><a href="${context.base}/resources/${encodeURIComponent(h.resourceId)}">${h.resourceId}</a></td>
          <td>${h.event.name}</td>
          <td class="num">${money(amount)}</td>
          <td>${h.violations.map((v) => html`<span class="violation">${v.reason}</span> ${v.message} `)}</td>
          <td>${h.state}</td>
          <td class="decide">
            ${canRelease ? actionForm(context, `/actions/held/${id}/release`, 'Release', trail('release', false)) : ''}${actionForm(context, `/actions/held/${id}/dismiss`, 'Dismiss', trail('dismiss', true))}
          </td>
        </tr>`;
      })}
    </tbody>
  </table>`;
}

/** Released and dismissed held events: who decided (`by`), why (`note`) and when. */
export function closedHeldTable(context: PageContext, held: readonly HeldEvent[]): SafeHtml {
  if (held.length === 0) return html`<p>No closed held events.</p>`;
  return html`<table class="held closed">
    <thead>
      <tr>
        <th scope="col">Closed (UTC)</th>
        <th scope="col">Resource</th>
        <th scope="col">Event</th>
        <th scope="col">Amount</th>
        <th scope="col">Outcome</th>
        <th scope="col">By</th>
        <th scope="col">Note</th>
        <th scope="col">Held (UTC)</th>
      </tr>
    </thead>
    <tbody>
      ${held.map((h) => {
        const amount = h.event.kind === 'transaction' ? h.event.transaction.amountInCents : h.event.transfer.amountInCents;
        return html`<tr data-held-id="${h.heldId}" data-state="${h.state}">
          <td>${h.closedAt === undefined ? '—' : when(h.closedAt)}</td>
          <td><a href="${context.base}/resources/${encodeURIComponent(h.resourceId)}">${h.resourceId}</a></td>
          <td>${h.event.name}</td>
          <td class="num">${money(amount)}</td>
          <td>${h.state}</td>
          <td>${h.by ?? '—'}</td>
          <td>${h.note ?? '—'}</td>
          <td>${when(h.heldAt)}</td>
        </tr>`;
      })}
    </tbody>
  </table>`;
}
