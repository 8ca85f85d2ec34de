// Issue 37: refusals are logged once per reason per window, with the peer and the real cause; RFC 6125 names;
// the URL secret read past the suffix a PSP appends.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiPixReceiver, type ApiPixReceiverOptions } from '../../src/api-pix/index.js';
import { certificateIdentity } from '../../src/sources/api-pix/certificate-names.js';
import { refusalWarningWindowMs } from '../../src/api-pix/receiver/refusal-warnings.js';
import { memoryPaymentBook } from '../../src/index.js';
import { apiPixBody, apiPixPix } from '../../src/testing/index.js';
import { apiPixRefusalHint } from '../../cli/shared/refusal-hint.js';
import { call, proxySecret, urlSecret } from './fixtures.js';

interface Line {
  level: string;
  fields: Record<string, unknown>;
  message: string | undefined;
}

function recording() {
  const lines: Line[] = [];
  const at = (level: string) => (fields: object, message?: string) =>
    void lines.push({ level, fields: fields as Record<string, unknown>, message });
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
}

const refusals = (lines: Line[]) => lines.filter((line) => line.message === 'pixhook: API Pix call refused');

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('refusal warnings', () => {
  it('one warning per reason per window, with the reason, the peer and the hint; the next one counts those left out', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { lines, logger } = recording();
    const receiver = createApiPixReceiver({ auth: { urlSecret: { secret: urlSecret, allowFrom: ['10.0.0.0/8'] } }, logger });
    const wrong = () => call({ pix: [apiPixPix()] }, { secret: `${urlSecret}x`, address: '10.0.0.7' });
    for (let i = 0; i < 5; i++) expect((await receiver.receive(wrong())).reason).toBe('url_secret_mismatch');
    // Another reason has its own window.
    expect((await receiver.receive(call({ pix: [apiPixPix()] }, { address: '192.0.2.9' }))).reason).toBe('address_not_allowed');
    expect(refusals(lines).map((line) => [line.level, line.fields['reason'], line.fields['peer']])).toEqual([
      ['warn', 'url_secret_mismatch', '10.0.0.7'],
      ['warn', 'address_not_allowed', '192.0.2.9'],
    ]);
    expect(refusals(lines)[1]!.fields['hint']).toBe('the address seen, 192.0.2.9, is not one of auth.urlSecret.allowFrom (10.0.0.0/8)');
    vi.setSystemTime(Date.now() + refusalWarningWindowMs);
    await receiver.receive(wrong());
    expect(refusals(lines)).toHaveLength(3);
    expect(refusals(lines)[2]!.fields).toMatchObject({ reason: 'url_secret_mismatch', notLogged: 4 });
    // No per-call line for a refusal besides the rate-limited one, and never the secret.
    expect(lines.filter((line) => line.fields['reason'] === 'url_secret_mismatch')).toHaveLength(2);
    expect(JSON.stringify(lines)).not.toContain(urlSecret);
  });

  it('without a logger, warnings go to console.warn (a refusal is never silent)', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const receiver = createApiPixReceiver({ auth: { proxy: { from: ['10.0.0.1'], secret: proxySecret } } });
    const answer = await receiver.receive({ ...call({ pix: [apiPixPix()] }, { secret: null, address: '10.0.0.1' }), headers: {} });
    expect(answer.reason).toBe('proxy_secret_mismatch');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(
      /^pixhook: API Pix call refused \{"reason":"proxy_secret_mismatch","peer":"10\.0\.0\.1","hint":"no x-pixhook-proxy-secret header/,
    );
  });

  it('escapes the untrusted strings it writes (a forged peer address or key)', async () => {
    const { lines, logger } = recording();
    const receiver = createApiPixReceiver({ auth: { urlSecret: { secret: urlSecret } }, keys: ['loja@example.com'], logger });
    await receiver.receive(call({ pix: [apiPixPix()] }, { secret: null, address: '10.0.0.1\u001b[31m\nforged' }));
    await receiver.receive(call(apiPixBody([apiPixPix({ key: 'evil\u2028key\u0085' })])));
    const text = JSON.stringify(lines.map((line) => line.fields));
    expect(text).toContain('10.0.0.1\\\\u001b[31m\\\\u000aforged');
    expect(text).toContain('evil\\\\u2028key\\\\u0085');
  });

  it('a Pix to a key outside keys: one warning naming the key seen and the configured keys, with or without a book', async () => {
    for (const book of [undefined, memoryPaymentBook()]) {
      const { lines, logger } = recording();
      const options = { auth: { urlSecret: { secret: urlSecret } }, keys: ['loja@example.com', 'cnpj-key'], logger, ...(book && { book }) };
      const receiver = createApiPixReceiver(options as ApiPixReceiverOptions);
      const answer = await receiver.receive(call(apiPixBody([apiPixPix({ key: 'outra@example.com' })]), { address: '10.9.9.9' }));
      expect(answer.status).toBe(200);
      const warned = lines.filter((line) => line.fields['reason'] === 'unknown_key');
      expect(warned).toHaveLength(1);
      expect(warned[0]!.message).toBe('pixhook: a Pix to a key outside `keys` was not dispatched');
      expect(warned[0]!.fields['peer']).toBe('10.9.9.9');
      expect(warned[0]!.fields['hint']).toMatch(
        new RegExp(
          `^the Pix is to key outra@example\\.com, not one of keys \\(loja@example\\.com, cnpj-key\\); ${book ? 'held by the book' : 'kept in the quarantine'}`,
        ),
      );
    }
  });
});

describe('mTLS names as RFC 6125 reads them', () => {
  it('DNS SANs when there are any, the CN only when there are none', () => {
    expect(certificateIdentity('webhook.psp.example', 'DNS:attacker.example')).toEqual({ from: 'DNS SAN', names: ['attacker.example'] });
    expect(certificateIdentity('webhook.psp.example', 'IP Address:127.0.0.1, URI:spiffe://x')).toEqual({
      from: 'CN',
      names: ['webhook.psp.example'],
    });
    expect(certificateIdentity('webhook.psp.example', undefined)).toEqual({ from: 'CN', names: ['webhook.psp.example'] });
    expect(certificateIdentity(undefined, '')).toEqual({ from: 'CN', names: [] });
    expect(certificateIdentity('x', 'DNS:A.Example, IP Address:10.0.0.1, DNS:b.example')).toEqual({
      from: 'DNS SAN',
      names: ['a.example', 'b.example'],
    });
  });

  it('a quoted SAN value (Node writes one holding a separator as JSON) is one name, never a forged entry', () => {
    expect(certificateIdentity('x', 'DNS:"evil.example, DNS:webhook.psp.example"').names).toEqual([
      'evil.example, dns:webhook.psp.example',
    ]);
    expect(certificateIdentity('x', 'DNS:"a\\"b", DNS:c.example').names).toEqual(['a"b', 'c.example']);
    expect(certificateIdentity('x', 'DNS:"unterminated').names).toEqual([]);
  });
});

describe('the URL secret past the suffix a PSP appends', () => {
  const receiver = () => createApiPixReceiver({ auth: { urlSecret: { secret: urlSecret } } } as ApiPixReceiverOptions);
  const at = (url: string) => ({ ...call({ pix: [apiPixPix()] }, { secret: null }), url });

  it.each([
    [`/webhooks/bank?secret=${urlSecret}/pix`, 200],
    [`/webhooks/bank?secret=${urlSecret}/REC/`, 200],
    [`/webhooks/bank?secret=${encodeURIComponent(urlSecret)}%2Fcobr`, 200],
    [`/webhooks/bank/${urlSecret}/pix`, 200],
    [`/webhooks/bank/${urlSecret}`, 200],
    [`/webhooks/bank/${urlSecret}/pix#frag`, 200],
    [`/webhooks/bank?secret=${urlSecret}/pix/pix`, 401],
    [`/webhooks/bank/${urlSecret.slice(0, -1)}/pix`, 401],
    [`/webhooks/bank/x${urlSecret}/pix`, 401],
    [`/webhooks/bank/pix?secret=%E0%A4%A`, 401],
    [`/webhooks/bank/%E0%A4%A/pix`, 401],
  ])('%s → %i', async (url, status) => {
    expect((await receiver().receive(at(url))).status).toBe(status);
  });

  it('a bare array is read as the callback the query names when the path names none', async () => {
    const seen: string[] = [];
    const r = receiver().onAny((event) => void seen.push(event.name));
    const rec = [
      {
        idRec: 'RR1026652320240821lab77511abf',
        status: 'APROVADA',
        atualizacao: [{ status: 'APROVADA', data: '2024-08-22T12:43:53.337Z' }],
      },
    ];
    const answer = await r.receive({ ...call(rec, { secret: null }), url: `/webhooks/bank?secret=${urlSecret}/rec` });
    expect(answer.status).toBe(200);
    expect(seen).toEqual(['recurrence_updated']);
  });
});

describe('pixhook send --profile api-pix: the refusal line names the cause the answer gives', () => {
  it.each([
    ['client_certificate_rejected', 401, /a pinned name \(auth\.mtls\.names: the certificate's DNS SANs, its CN only without any\)/],
    ['address_not_allowed', 403, /the address it sees \(auth\.proxy\.from or auth\.urlSecret\.allowFrom\)/],
    ['proxy_secret_mismatch', 401, /did not come through the proxy's mTLS server block/],
    ['client_certificate_required', 401, /present one with --cert\/--key/],
  ])('%s', (reason, status, cause) => {
    const line = apiPixRefusalHint(status, 'https://127.0.0.1:1/webhooks/bank', JSON.stringify({ error: reason, message: '…' }));
    expect(line).toMatch(cause);
    expect(line).toContain(`(${String(status)}): ${reason}: `);
  });
  it('an answer without a known reason gets the general hint', () => {
    for (const body of [undefined, 'not json', '{"error":"toString"}'])
      expect(apiPixRefusalHint(401, 'https://h/x', body)).toMatch(/check the client certificate .* or the URL secret/);
  });
});
