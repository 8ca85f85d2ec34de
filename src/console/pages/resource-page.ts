import type { BookResource, HeldEvent } from '../../book/payment-book.js';
import type { JournalEntry } from '../../journal/delivery-journal.js';
import { html } from '../html.js';
import { money, when } from '../format.js';
import { deliveryTable } from './delivery-rows.js';
import { heldTable } from './held-rows.js';
import { layout, type PageContext } from './layout.js';

export function resourcePage(
  context: PageContext,
  id: string,
  resource: BookResource | undefined,
  held: readonly HeldEvent[],
  deliveries: readonly JournalEntry[],
  canRelease: boolean,
): string {
  const violations = resource?.timeline.filter((t) => t.reasons.length > 0) ?? [];
  const book =
    resource === undefined
      ? html`<p>The book has no record of this id${context.has.book ? '' : ' (no book is mounted)'}.</p>`
      : html`<dl class="facts">
            <dt>Kind</dt>
            <dd>${resource.kind}</dd>
            <dt>Status</dt>
            <dd>${resource.status}</dd>
            <dt>Amount</dt>
            <dd>${money(resource.amountInCents)}</dd>
            <dt>Expected</dt>
            <dd>
              ${resource.expected === undefined ? '—' : html`${money(resource.expected.amountInCents)}${resource.expected.payerDocument === undefined ? '' : html`, payer ${resource.expected.payerDocument}`}${resource.expected.expiresAt === undefined ? '' : html`, until ${when(resource.expected.expiresAt)}`}`}
            </dd>
          </dl>
          <h2>Timeline</h2>
          <table class="timeline">
            <thead>
              <tr>
                <th scope="col">At (UTC)</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Amount</th>
                <th scope="col">Channel</th>
                <th scope="col">Outcome</th>
                <th scope="col">Violations</th>
                <th scope="col">Delivery</th>
              </tr>
            </thead>
            <tbody>
              ${resource.timeline.map(
                (t) =>
                  html`<tr data-outcome="${t.outcome}">
                    <td>${when(t.at)}</td>
                    <td>${t.name}</td>
                    <td>${t.status}</td>
                    <td class="num">${money(t.amountInCents)}</td>
                    <td>${t.channel}</td>
                    <td>${t.outcome}${t.by === undefined ? '' : ` by ${t.by}`}${t.note === undefined ? '' : `: ${t.note}`}</td>
                    <td>${t.reasons.join(', ')}</td>
                    <td>${t.deliveryId ?? ''}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
          <h2>Violations</h2>
          ${
            violations.length === 0
              ? html`<p>None.</p>`
              : html`<ul>
                  ${violations.map((t) => html`<li>${when(t.at)} ${t.name}: ${t.reasons.join(', ')} (${t.outcome})</li>`)}
                </ul>`
          }
          <h2>Dispute</h2>
          ${
            resource.disputes.length === 0
              ? html`<p>No dispute.</p>`
              : html`<ul>
                  ${resource.disputes.map((d) => html`<li class="dispute">${d.open ? 'Open' : 'Closed'} since ${when(d.openedAt)}${d.reason === undefined ? '' : html`: ${d.reason}`}${d.amountInCents === undefined ? '' : html` (${money(d.amountInCents)})`}${d.id === undefined ? '' : html` [${d.id}]`}</li>`)}
                </ul>`
          }`;
  const body = html`${book}
    <h2>Held events</h2>
    ${heldTable(context, held, canRelease)}
    <h2>Deliveries</h2>
    ${deliveryTable(context.base, deliveries, { resource: id }, `Deliveries for ${id}`)}`;
  return layout(context, `Resource ${id}`, '', body);
}
