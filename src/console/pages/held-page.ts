import type { HeldEvent } from '../../book/payment-book.js';
import { html } from '../html.js';
import { heldTable } from './held-rows.js';
import { layout, type PageContext } from './layout.js';

export function heldPage(context: PageContext, held: readonly HeldEvent[], canRelease: boolean): string {
  const body = html`<p>
      Events the payment book held: their handlers have not run. Release runs them once; Dismiss closes them with a note.
    </p>
    ${heldTable(context, held, canRelease)}`;
  return layout(context, 'Held events', '/held', body);
}
