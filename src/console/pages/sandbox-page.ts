import type { JournalEntry } from '../../journal/delivery-journal.js';
import type { SandboxCharge, SandboxDelivery, SandboxFault, SandboxPaymentFault, SandboxTransfer } from '../console-sandbox.js';
import { html, type SafeHtml } from '../html.js';
import { money } from '../format.js';
import { deliveryTable } from './delivery-rows.js';
import { actionForm, layout, type PageContext } from './layout.js';

interface SandboxView {
  charges: readonly SandboxCharge[];
  transfers: readonly SandboxTransfer[];
  deliveries: readonly SandboxDelivery[];
  faults: readonly SandboxFault[];
  journal: readonly JournalEntry[];
  canReconcile: boolean;
  /** False under the standard API Pix profile: its PSP sends no transfers, so no form is offered. Default true. */
  canTransfer?: boolean;
  /** The sender's payment faults, one button each on every charge (the PSP profiles). */
  paymentFaults?: readonly SandboxPaymentFault[];
}

const input = (id: string, name: string, label: string, attributes: SafeHtml | string = '') =>
  html`<label for="${id}">${label}</label><input id="${id}" name="${name}" ${attributes} />`;

function chargeCard(context: PageContext, charge: SandboxCharge, paymentFaults: readonly SandboxPaymentFault[]): SafeHtml {
  const id = encodeURIComponent(charge.id);
  const at = `/actions/sandbox/charges/${id}`;
  // Only a PNG data URI is ever put in the image's src.
  const qr = /^data:image\/png;base64,[A-Za-z0-9+/=]+$/.test(charge.qrCode) ? charge.qrCode : '';
  const payFields = html`${input(`pay-amount-${charge.id}`, 'amountInCents', 'Other amount (cents)', html`inputmode="numeric" pattern="[0-9]*"`)}${input(`pay-name-${charge.id}`, 'payerName', 'Payer name')}${input(`pay-doc-${charge.id}`, 'payerDocument', 'Payer CPF/CNPJ')}`;
  return html`<article class="charge" data-charge-id="${charge.id}" aria-labelledby="charge-${charge.id}">
    <h3 id="charge-${charge.id}">
      <a href="${context.base}/resources/${id}">${charge.id}</a> · ${money(charge.amountInCents)} ·
      <span class="charge-status">${charge.status}</span>
    </h3>
    <div class="pix">
      <img class="qr" src="${qr}" alt="QR code of charge ${charge.id}" width="180" height="180" />
      <div class="emv">
        <label for="emv-${charge.id}">Copy-and-paste code</label><textarea id="emv-${charge.id}" readonly rows="4">${charge.emv}</textarea
        ><button type="button" class="copy" data-copy="emv-${charge.id}">Copy code</button>
        ${charge.location === undefined ? '' : html`<p class="location">Payload location: <code>${charge.location}</code></p>`}
      </div>
    </div>
    <div class="charge-actions">
      ${actionForm(context, `${at}/pay`, 'Pay', payFields, 'pay')} ${actionForm(context, `${at}/expire`, 'Expire')}
      ${actionForm(context, `${at}/refund`, 'Refund')} ${actionForm(context, `${at}/dispute`, 'Dispute')}
      ${paymentFaults.map((f) => actionForm(context, `${at}/fault/${encodeURIComponent(f.name)}`, f.label))}
    </div>
  </article>`;
}

function transfersSection(context: PageContext, view: SandboxView): SafeHtml {
  return html`<section aria-labelledby="transfers">
    <h2 id="transfers">Transfers</h2>
    ${actionForm(
      context,
      '/actions/sandbox/transfers',
      'Send transfer',
      html`${input('transfer-amount', 'amountInCents', 'Amount (cents)', html`value="500" inputmode="numeric" pattern="[0-9]*" required`)}${input('transfer-key', 'pixKey', 'PIX key', html`value="alguem@example.com" required`)}`,
    )}
    ${
      view.transfers.length === 0
        ? ''
        : html`<ul>
            ${view.transfers.map((t) => html`<li data-transfer-id="${t.id}"><a href="${context.base}/resources/${encodeURIComponent(t.id)}">${t.id}</a> ${money(t.amountInCents)} to ${t.pixKey}: ${t.status}</li>`)}
          </ul>`
    }
  </section>`;
}

export function sandboxPage(context: PageContext, view: SandboxView): string {
  const body = html`<p>
      A PIX gateway emulator, a receiver running your handlers, the payment book and the journal, in one process. Everything below happens
      for real over HTTP.
    </p>
    <section aria-labelledby="new-charge">
      <h2 id="new-charge">Charges</h2>
      ${actionForm(context, '/actions/sandbox/charges', 'Create charge', input('charge-amount', 'amountInCents', 'Amount (cents)', html`value="1000" inputmode="numeric" pattern="[0-9]*" required`))}
      ${view.charges.length === 0 ? html`<p>No charge yet.</p>` : view.charges.map((c) => chargeCard(context, c, view.paymentFaults ?? []))}
    </section>
    ${view.canTransfer === false ? '' : transfersSection(context, view)}
    <section aria-labelledby="faults">
      <h2 id="faults">Delivery faults</h2>
      <p>Make the gateway's deliveries fail, then watch it retry, give up, and the reconciler recover the payment.</p>
      ${actionForm(
        context,
        '/actions/sandbox/faults',
        'Inject fault',
        html`<label for="fault-action">Fault</label
          ><select id="fault-action" name="action">
            <option value="fail">answer 500</option>
            <option value="timeout">time out</option>
            <option value="drop">drop the connection</option></select
          >${input('fault-times', 'times', 'Attempts hit (empty: until cleared)', html`inputmode="numeric" pattern="[0-9]*"`)}`,
      )}
      ${
        view.faults.length === 0
          ? html`<p>No fault in force.</p>`
          : html`<ul>
                ${view.faults.map((f) => html`<li>${f.id}: ${f.action}, ${f.hits} hit${f.times === undefined ? '' : html` of ${f.times}`}</li>`)}
              </ul>
              ${actionForm(context, '/actions/sandbox/faults/clear', 'Clear faults')}`
      }
      ${view.canReconcile ? actionForm(context, '/actions/sandbox/reconcile', 'Run reconciler') : ''}
    </section>
    <section aria-labelledby="gateway">
      <h2 id="gateway">What the gateway sent</h2>
      ${
        view.deliveries.length === 0
          ? html`<p>Nothing yet.</p>`
          : html`<table class="gateway">
              <thead>
                <tr>
                  <th scope="col">Delivery</th>
                  <th scope="col">Event</th>
                  <th scope="col">Resource</th>
                  <th scope="col">State</th>
                  <th scope="col">Attempts</th>
                </tr>
              </thead>
              <tbody>
                ${view.deliveries.map(
                  (d) =>
                    html`<tr data-gateway-delivery="${d.id}" data-state="${d.state}">
                      <td>${d.id}</td>
                      <td>${d.event}</td>
                      <td>${d.resourceId}</td>
                      <td>${d.state}</td>
                      <td>
                        ${d.attempts.map((a) => html`<span class="attempt">#${a.attempt} ${a.status ?? a.error ?? 'no answer'}${a.fault === undefined ? '' : html` (fault ${a.fault})`}</span> `)}
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
    </section>
    <section aria-labelledby="received">
      <h2 id="received">What your receiver answered</h2>
      ${deliveryTable(context.base, view.journal, {}, 'Latest deliveries; new ones appear live')}
    </section>`;
  return layout(context, 'Sandbox', '/', body);
}
