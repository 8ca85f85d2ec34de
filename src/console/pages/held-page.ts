import type { HeldEvent } from '../../book/payment-book.js';
import { html } from '../html.js';
import { closedHeldTable, heldTable } from './held-rows.js';
import { layout, type PageContext } from './layout.js';

type HeldView = 'open' | 'closed';

const releasable = 'Events the payment book held: their handlers have not run. Release runs them once; Dismiss closes them with a note.';
// A console without a receiver (`pixhook console`) has no handlers to run: say where a release is done instead.
const dismissOnly = html`Events the payment book held: their handlers have not run. Dismiss closes them with a note. This console has no
  handlers to release them with: release from a process that has them,
  <code>pixhook book release &lt;heldId&gt; --handlers ./handlers.js</code> (with the same <code>--redis</code> or <code>--postgres</code>),
  or a console given your <code>receiver</code>.`;

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
          <p>${canRelease ? releasable : dismissOnly}</p>
          ${heldTable(context, held, canRelease)}`;
  return layout(context, view === 'closed' ? 'Closed held events' : 'Held events', '/held', body);
}
