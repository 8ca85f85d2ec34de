import { html } from '../html.js';
import { layout, type PageContext } from './layout.js';

/** A 404 inside the console's layout: the navigation stays, and a way back. */
export function notFoundPage(context: PageContext, message: string): string {
  const body = html`<p>${message}</p>
    <p><a href="${context.base}/deliveries">Back to the deliveries</a></p>`;
  return layout(context, 'Not found', '', body);
}
