import type { JournalEntry } from '../../journal/delivery-journal.js';
import { normalizeEvent } from '../../index.js';
import { html, type SafeHtml } from '../html.js';
import { maskSignature, money, when } from '../format.js';
import { actionForm, layout, type PageContext } from './layout.js';

function prettyBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), undefined, 2);
  } catch {
    return body;
  }
}

/** The typed view: what the handlers receive, without the raw payload (shown below as the body). */
function typedView(body: string | undefined): { text: string; warnings: string[] } | undefined {
  if (body === undefined) return undefined;
  try {
    const normalized = normalizeEvent(JSON.parse(body));
    if (!normalized.ok) return { text: normalized.message, warnings: [] };
    const { payload: _payload, raw: _raw, ...typed } = normalized.event;
    const warnings =
      'warnings' in normalized.event ? normalized.event.warnings.map((w) => `${w.path}: ${w.message ?? `found ${w.found}`}`) : [];
    return { text: JSON.stringify(typed, undefined, 2), warnings };
  } catch {
    return undefined;
  }
}

/** `pixhook dev`'s "Run again": a verified delivery whose handlers ran (handled), with its body; not a rerun itself. */
export function rerunnable(entry: JournalEntry): boolean {
  return (
    entry.verified &&
    entry.body !== undefined &&
    entry.status === 200 &&
    entry.reason === undefined &&
    entry.event !== undefined &&
    entry.rerun !== true
  );
}

export function deliveryPage(context: PageContext, entry: JournalEntry, canReplay: boolean): string {
  const typed = typedView(entry.body);
  const warnings = [...(entry.warnings ?? []), ...(typed?.warnings ?? [])];
  const row = (label: string, value: SafeHtml | string | number | undefined) =>
    html`<dt>${label}</dt>
      <dd>${value === undefined || value === '' ? '—' : value}</dd>`;
  const resource = entry.resourceId;
  const body = html`<dl class="facts">
      ${row('Answer', html`<span class="status s${Math.floor(entry.status / 100)}xx">${entry.status}</span> ${entry.reason ?? ''}`)}
      ${row('Received (UTC)', when(entry.at))} ${row('Event', entry.event)}
      ${row('Resource', resource === undefined ? undefined : html`<a href="${context.base}/resources/${encodeURIComponent(resource)}">${resource}</a>`)}
      ${row('Amount', money(entry.amountInCents))} ${row('Channel', entry.channel)} ${row('Verified', entry.verified ? 'yes' : 'no')}
      ${row('Dedupe key', entry.key)} ${row('Gateway delivery id', entry.deliveryId)} ${row('Replay of', entry.replayOf)}
      ${row('Remote address', entry.remoteAddress)} ${row('Signature', maskSignature(entry.signature))}
      ${row('Body size', `${entry.bodyBytes} bytes`)}
    </dl>
    ${entry.items === undefined ? '' : itemsTable(entry)}
    ${canReplay && entry.verified && entry.body !== undefined ? actionForm(context, `/actions/deliveries/${encodeURIComponent(entry.id)}/replay`, 'Replay') : ''}
    ${context.has.rerun === true && rerunnable(entry) ? actionForm(context, `/actions/deliveries/${encodeURIComponent(entry.id)}/rerun`, 'Run again') : ''}
    <h2>Warnings</h2>
    ${
      warnings.length === 0
        ? html`<p>None.</p>`
        : html`<ul>
            ${warnings.map((w) => html`<li>${w}</li>`)}
          </ul>`
    }
    <h2>Handler runs</h2>
    ${
      entry.attempts.length === 0
        ? html`<p>None recorded.</p>`
        : html`<table>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Started (UTC)</th>
                <th scope="col">Outcome</th>
                <th scope="col">Duration</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              ${entry.attempts.map(
                (a) =>
                  html`<tr data-outcome="${a.outcome}">
                    <td>${a.attempt}</td>
                    <td>${when(a.at)}</td>
                    <td>${a.outcome}</td>
                    <td class="num">${a.durationMs.toFixed(1)} ms</td>
                    <td>${a.error ?? ''}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    <h2>Typed event</h2>
    ${typed === undefined ? html`<p>No verified body is kept for this delivery.</p>` : html`<pre class="code" tabindex="0" role="region" aria-label="Typed event">${typed.text}</pre>`}
    <h2>Body</h2>
    ${entry.body === undefined ? html`<p>Not stored: only verified bodies are kept.</p>` : html`<pre class="code" tabindex="0" role="region" aria-label="Body">${prettyBody(entry.body)}</pre>`}`;
  return layout(context, `Delivery ${entry.id}`, '/deliveries', body);
}

/** A standard API Pix call (`pixhook/api-pix`): its item count, and each item's event, key and endToEndId. */
function itemsTable(entry: JournalEntry): SafeHtml {
  const items = entry.items ?? [];
  return html`<h2>Items (${items.length})</h2>
    <table>
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">Receiving key</th>
          <th scope="col">endToEndId</th>
          <th scope="col">txid</th>
          <th scope="col">Amount</th>
          <th scope="col">Answer</th>
          <th scope="col">Dedupe key</th>
        </tr>
      </thead>
      <tbody>
        ${items.map(
          (item) =>
            html`<tr>
              <td>${item.event}</td>
              <td>${item.pixKey ?? '—'}</td>
              <td>${item.endToEndId ?? '—'}</td>
              <td>${item.txid ?? '—'}</td>
              <td class="num">${money(item.amountInCents)}</td>
              <td>${item.reason ?? 'handled'}</td>
              <td>${item.key ?? '—'}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}
