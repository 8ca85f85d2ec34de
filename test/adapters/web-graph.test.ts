import { build, type Plugin } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { createContext, runInContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { variantBPaid } from '../contract/fixtures.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const secret = 'whsec_edge_graph';

// Any Node built-in in the graph fails the build: `node:` ids, and bare ones (`crypto`, `buffer`…) that a
// browser platform cannot resolve either.
const refuseNodeBuiltins: Plugin = {
  name: 'refuse-node-builtins',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) => ({ errors: [{ text: `node built-in "${args.path}" imported by ${args.importer}` }] }));
  },
};

async function bundleForBrowser(): Promise<string> {
  const result = await build({
    stdin: {
      contents: "export { createFetchHandler } from './adapters/web/index.ts'; export { createReceiver } from './src/index.ts';",
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'browser',
    format: 'iife',
    globalName: 'pixhookBundle',
    write: false,
    logLevel: 'silent',
    plugins: [refuseNodeBuiltins],
  });
  return result.outputFiles[0]!.text;
}

describe('pixhook/web import graph', () => {
  it('bundles for a browser platform with no node: import and no Buffer but a feature-detected globalThis.Buffer', async () => {
    const code = await bundleForBrowser();
    // The only Buffer allowed is read off globalThis, where it may be absent (hex decoding uses it when there).
    expect(code).not.toMatch(/(?<!globalThis\.)\bBuffer\b/);
    expect(code).toMatch(/globalThis\.Buffer\b/);
    expect(code).not.toMatch(/require\(["']/);
  });

  it('verifies a signed delivery through Web Crypto where there is no process, Buffer or node:crypto', async () => {
    const code = await bundleForBrowser();
    const subtleCalls: string[] = [];
    const subtle = globalThis.crypto.subtle;
    const countingSubtle = {
      importKey: (...args: Parameters<SubtleCrypto['importKey']>) => (subtleCalls.push('importKey'), subtle.importKey(...args)),
      verify: (...args: Parameters<SubtleCrypto['verify']>) => (subtleCalls.push('verify'), subtle.verify(...args)),
    };
    // Only Web platform globals: what a Worker, Deno or a browser offers. The typed arrays are this
    // realm's, like the bytes the (also this realm's) Request streams: one realm, as on a real edge.
    const context = createContext({
      Uint8Array,
      ArrayBuffer,
      crypto: { subtle: countingSubtle, getRandomValues: (a: Uint8Array) => globalThis.crypto.getRandomValues(a) },
      TextEncoder,
      TextDecoder,
      URL,
      Request,
      Response,
      Headers,
      ReadableStream,
      AbortController,
      AbortSignal,
      Event,
      EventTarget,
      setTimeout,
      clearTimeout,
      setInterval,
      clearInterval,
      queueMicrotask,
      structuredClone,
      performance,
      console,
    });
    runInContext(code, context);
    expect(runInContext('typeof process + typeof Buffer + typeof require', context)).toBe('undefinedundefinedundefined');

    const body = bytesOf(variantBPaid);
    context['delivery'] = { body, signature: signBytes(body, secret), forged: signBytes(body, 'whsec_forged') };
    const outcome = (await runInContext(
      `(async () => {
        const handled = [];
        const receiver = pixhookBundle.createReceiver({ secret: '${secret}' }).onAny((event) => { handled.push(event.transaction.id); });
        const handler = pixhookBundle.createFetchHandler(receiver);
        const send = (signature) => handler(new Request('https://edge.example/webhooks/pix', {
          method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': signature }, body: delivery.body,
        }));
        const ok = await send(delivery.signature);
        const forged = await send(delivery.forged);
        return { ok: ok.status, forged: forged.status, forgedBody: await forged.json(), handled };
      })()`,
      context,
    )) as { ok: number; forged: number; forgedBody: { error: string }; handled: string[] };

    expect(outcome.ok).toBe(200);
    expect(outcome.forged).toBe(401);
    expect(outcome.forgedBody.error).toBe('signature_mismatch');
    expect(outcome.handled).toEqual(['tx_b_0001']);
    expect(subtleCalls).toContain('verify');
  });
});
