import { expect, it } from 'vitest';
import { apiPixBody, apiPixPix } from '../../src/testing/index.js';
import { describeEndToEnd, startEndToEnd } from './end-to-end-setup.js';
import { proxySecret } from '../api-pix/fixtures.js';
import { txid } from './emulator-setup.js';

// The emulated PSP → a real nginx (Debian's package; `ssl_verify_client on` against the emulator's CA, serving a
// certificate the emulator trusts) → Express with createApiPixReceiver in proxy mode, which believes nginx's
// verdict and fingerprint headers only from nginx's address (127.0.0.1/32).
describeEndToEnd('emulator → nginx (mTLS) → createApiPixReceiver in Express, proxy mode', 'nginx', () => {
  it('a request straight to Express from another address, with the same headers nginx sets, is refused: 403', async () => {
    const { emulator, client, received, direct, clientFingerprint } = await startEndToEnd('nginx');
    await client.createCharge({ txid: txid(7), amountInCents: 700 });
    const pix = apiPixPix({ key: emulator.credentials.pixKey, txid: txid(7), amountInCents: 700 });
    const headers = { 'x-ssl-client-verify': 'SUCCESS', 'x-ssl-client-fingerprint': clientFingerprint };
    const answer = await direct(headers, apiPixBody([pix]), '127.0.0.2');
    expect(answer).toMatchObject({ status: 403, body: { error: 'address_not_allowed' } });
    // From nginx's own address, the same headers without the secret only nginx's mTLS block sends: 401.
    const forged = await direct(headers, apiPixBody([pix]), '127.0.0.1');
    expect(forged).toMatchObject({ status: 401, body: { error: 'proxy_secret_mismatch' } });
    expect(received).toHaveLength(0);
    // With it, from nginx's address, it is believed: the refusals above are the address and the secret, not the body.
    const believed = await direct({ ...headers, 'x-pixhook-proxy-secret': proxySecret }, apiPixBody([pix]), '127.0.0.1');
    expect(believed.status).toBe(200);
    expect(received.map((event) => event.pix.endToEndId)).toEqual([pix.endToEndId]);
  });
});
