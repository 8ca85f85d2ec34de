import type { HeldEvent } from '../../book/payment-book.js';
import { html } from '../html.js';
import { closedHeldTable, heldTable } from './held-rows.js';
import { layout, type PageContext } from './layout.js';

type HeldView = 'open' | 'closed';

export function heldPage(context: PageContext, held: readonly HeldEvent[], canRelease: boolean, view: HeldView = 'open'): string {
  const tabs = html`<nav aria-label="Held events" class="views">
    <a href="${context.base}/held" ${view === 'open' ? html`aria-current="page"` : ''}>Open</a>
    <a href="${context.base}/held?state=closed" ${view === 'closed' ? html`aria-current="page"` : ''}>Closed</a>
  </nav>`;
  const body =
    view === 'closed'
      ? html`${tabs}
          <p>Held events a person released or dismissed: who, why and when.</p>
          ${closedHeldTable(context, held)}`
      : html`${tabs}
          <p>Events the payment book held: their handlers have not run. Release runs them once; Dismiss closes them with a note.</p>
          ${heldTable(context, held, canRelease)}`;
  return layout(context, view === 'closed' ? 'Closed held events' : 'Held events', '/held', body);
}
