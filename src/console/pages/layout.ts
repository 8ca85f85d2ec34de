import { html, type SafeHtml } from '../html.js';

export interface PageContext {
  /** The mount path, '' at the root. Every link starts with it. */
  base: string;
  csrf: string;
  /** Which parts exist, for the navigation. */
  has: { sandbox: boolean; book: boolean; quarantine: boolean; queue: boolean; reconciler: boolean; rerun?: boolean };
  notice?: { text: string; ok: boolean };
  /** The watchdog's active alerts, shown as a banner. */
  alerts?: readonly { kind: string; message: string; at: string }[];
}

const sections = [
  { path: '/', label: 'Sandbox', when: 'sandbox' },
  { path: '/deliveries', label: 'Deliveries' },
  { path: '/held', label: 'Held', when: 'book' },
  { path: '/quarantine', label: 'Quarantine', when: 'quarantine' },
  { path: '/dead-letters', label: 'Dead letters', when: 'queue' },
  { path: '/reconciler', label: 'Reconciler', when: 'reconciler' },
] as const;

/** Every page: one style sheet and one script from the package, no inline code, the CSRF token for the client. */
export function layout(context: PageContext, title: string, current: string, body: SafeHtml): string {
  const { base } = context;
  const nav = sections
    .filter((s) => !('when' in s) || context.has[s.when])
    .map((s) => html`<li><a href="${base}${s.path}" ${current === s.path ? html` aria-current="page"` : ''}>${s.label}</a></li>`);
  const notice = context.notice
    ? html`<p class="notice ${context.notice.ok ? 'ok' : 'failed'}" role="status">${context.notice.text}</p>`
    : '';
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="csrf-token" content="${context.csrf}" />
        <meta name="console-base" content="${base}" />
        <title>${title} · pixhook console</title>
        <link rel="icon" href="${base}/favicon.ico" />
        <link rel="stylesheet" href="${base}/assets/console.css" />
        <script src="${base}/assets/console.js" defer></script>
      </head>
      <body>
        <header>
          <p class="brand">pixhook console</p>
          <nav aria-label="Sections">
            <ul>
              ${nav}
            </ul>
          </nav>
        </header>
        ${
          context.alerts !== undefined && context.alerts.length > 0
            ? html`<section class="alerts" role="alert" aria-label="Watchdog alerts">
                <ul>
                  ${context.alerts.map((a) => html`<li data-alert="${a.kind}"><strong>${a.kind.replace(/_/g, ' ')}</strong> ${a.message}</li>`)}
                </ul>
              </section>`
            : ''
        }
        <main>
          <h1>${title}</h1>
          ${notice} ${body}
        </main>
      </body>
    </html> `.text;
}

/** A POST form with the CSRF token: a button with an accessible name, and optional fields before it. */
export function actionForm(context: PageContext, action: string, label: string, fields: SafeHtml | string = '', className = ''): SafeHtml {
  return html`<form method="post" action="${context.base}${action}" class="action ${className}">
    <input type="hidden" name="_csrf" value="${context.csrf}" />${fields}<button type="submit">${label}</button>
  </form>`;
}
