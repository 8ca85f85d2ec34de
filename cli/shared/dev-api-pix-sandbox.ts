import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import type { ApiPixClient } from '../../src/api-pix/index.js';
import type { ConsoleSandbox, SandboxCharge, SandboxFault } from '../../src/console/index.js';
import { qrPngDataUri, type ApiPixEmulator } from '../../src/emulator/index.js';
import { CommandFailure } from './cli-args.js';
import { faultInForce, newestFirst } from './dev-sandbox-faults.js';

interface CreatedCob {
  txid: string;
  amountInCents: number;
  location: string;
  emv: string;
  qrCode: string;
  createdAt: string;
  status: string;
}

/**
 * The sandbox page's controls under `pixhook dev --profile api-pix`: the merchant's API client creates cobs
 * (expected in the book by txid) and asks refunds; the emulated PSP's own controls pay, expire and open MED
 * returns, and its `/_emulator/delivery-faults` (over the same mTLS) make the webhook calls fail.
 */
export function devApiPixSandbox(input: { emulator: ApiPixEmulator; client: ApiPixClient }): ConsoleSandbox {
  const { emulator, client } = input;
  const cobs = new Map<string, CreatedCob>();
  const tls = {
    cert: readFileSync(emulator.certificates.clientCert, 'utf8'),
    key: readFileSync(emulator.certificates.clientKey, 'utf8'),
    ca: readFileSync(emulator.certificates.ca, 'utf8'),
  };
  let sequence = 0;

  /** The emulator's control answers (GET), over its mTLS. */
  function control(path: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const req = request(new URL(path, emulator.url), { method: 'GET', ...tls, signal: AbortSignal.timeout(5_000) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`the emulator answered ${res.statusCode ?? 0} to ${path}`));
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown);
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      });
      req.on('error', reject);
      req.end();
    });
  }

  /** The Pix the emulator received for a txid, oldest first. */
  function pixOf(txid: string): { endToEndId: string; amountInCents: number }[] {
    return emulator
      .pix()
      .filter((p) => p['txid'] === txid && typeof p['endToEndId'] === 'string')
      .map((p) => ({ endToEndId: p['endToEndId'] as string, amountInCents: centsOf(p['valor']) }));
  }

  function lastPix(txid: string): { endToEndId: string; amountInCents: number } {
    const pix = pixOf(txid).at(-1);
    if (pix === undefined) throw new CommandFailure('api_error', `${txid} has no Pix yet: pay it first`);
    return pix;
  }

  return {
    async charges(): Promise<SandboxCharge[]> {
      const latest = [...cobs.values()].slice(-20).reverse();
      // The status as the PSP states it now (a failed read keeps the last one known).
      await Promise.all(
        latest.map(async (cob) => {
          cob.status = await client.getCharge(cob.txid).then(
            (charge) => charge.status,
            () => cob.status,
          );
        }),
      );
      return latest.map((cob) => ({
        id: cob.txid,
        status: cob.status,
        amountInCents: cob.amountInCents,
        emv: cob.emv,
        qrCode: cob.qrCode,
        location: cob.location,
        createdAt: cob.createdAt,
      }));
    },
    async deliveries() {
      const txids = new Map(emulator.pix().map((p) => [p['endToEndId'], p['txid']]));
      return newestFirst(emulator.deliveries()).map((d) => ({
        id: d.id,
        event: /"devolucoes"/.test(d.body) ? 'pix (devolução)' : 'pix',
        resourceId: d.endToEndIds.map((e2e) => (typeof txids.get(e2e) === 'string' ? (txids.get(e2e) as string) : e2e)).join(' '),
        state: d.state,
        attempts: d.attempts.map((a, i) => ({
          attempt: i + 1,
          ...(a.status !== 0 && { status: a.status }),
          ...(a.error !== undefined && { error: a.error }),
        })),
      }));
    },
    async faults(): Promise<SandboxFault[]> {
      const answer = (await control('/_emulator/delivery-faults')) as { data?: SandboxFault[] };
      return (answer.data ?? [])
        .filter((f) => f.action === 'fail' || f.action === 'timeout' || f.action === 'drop' || f.action === 'delay')
        .map((f) => ({ id: f.id, action: f.action, hits: f.hits, ...(f.times !== undefined && { times: f.times }) }));
    },
    async createCharge({ amountInCents }) {
      sequence += 1;
      // 26–35 letters and digits: PUT /cob/{txid}, so a retried call never makes two charges.
      const txid = `dev${Date.now().toString(36)}${String(sequence).padStart(4, '0')}`.padEnd(26, '0');
      const charge = await client.createCharge({ txid, amountInCents, payerRequest: 'pixhook dev sandbox' });
      const location = charge.location ?? '';
      const emv = charge.pixCopyPaste;
      if (emv === undefined) throw new CommandFailure('api_error', `the PSP answered cob ${txid} without its pixCopiaECola`);
      cobs.set(txid, {
        txid,
        amountInCents,
        location,
        emv,
        qrCode: await qrPngDataUri(emv),
        createdAt: charge.createdAt ?? new Date().toISOString(),
        status: charge.status,
      });
      return `Created cob ${txid} (expected in the book): scan its QR code or paste its code, then Pay.`;
    },
    async pay(id, { amountInCents, payerName, payerDocument }) {
      emulator.pay(id, amountInCents === undefined ? {} : { amountInCents });
      const ignored =
        payerName !== undefined || payerDocument !== undefined ? ' (a standard Pix names no payer: name and CPF/CNPJ not sent)' : '';
      return `Paid ${id}${amountInCents === undefined ? '' : ` with ${amountInCents} cents`}; watch its delivery arrive below${ignored}.`;
    },
    async expire(id) {
      emulator.expire(id);
      return `Expired ${id}.`;
    },
    async refund(id) {
      const pix = lastPix(id);
      sequence += 1;
      const refundId = `dev${Date.now().toString(36)}${sequence}`;
      await client.refund(pix.endToEndId, refundId, pix.amountInCents);
      return `Asked refund ${refundId} of ${pix.endToEndId}; the PSP settles it and notifies pix_refund_updated.`;
    },
    async dispute(id) {
      const pix = lastPix(id);
      emulator.refund(pix.endToEndId, { natureza: 'MED_FRAUDE' });
      return `The PSP returned ${pix.endToEndId} under the MED (MED_FRAUDE).`;
    },
    async injectFault({ action, times }) {
      const fault = emulator.injectDeliveryFault({ action, ...(times !== undefined && { times }) });
      return faultInForce('id' in fault ? fault.id : action, 'webhook calls', action, times);
    },
    async clearFaults() {
      emulator.clearDeliveryFaults();
      return 'Every delivery fault is cleared.';
    },
  };
}

/** `"12.34"` → 1234; anything else 0 (then a refund asks 0 and the PSP refuses it, which the page shows). */
function centsOf(valor: unknown): number {
  if (typeof valor !== 'string' || !/^\d{1,10}\.\d{2}$/.test(valor)) return 0;
  return Number(valor.slice(0, -3)) * 100 + Number(valor.slice(-2));
}
