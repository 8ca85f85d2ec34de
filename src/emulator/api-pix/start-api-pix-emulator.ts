import { setMaxListeners } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ActiveDeliveryFault } from '../delivery-faults.js';
import { controlRoutes, type PixToKeyInput } from './api-pix-controls.js';
import { createApiPixDeliveries, type ApiPixDelivery } from './api-pix-deliveries.js';
import {
  resolveApiPixEmulatorOptions,
  type ApiPixEmulatorOptions,
  type ResolvedApiPixEmulatorOptions,
} from './api-pix-emulator-options.js';
import { createApiPixFaults, requestFaultSchema, type ApiPixDeliveryFault, type ApiPixRequestFault } from './api-pix-faults.js';
import { controlBody } from './api-pix-request-body.js';
import { pspRoutes } from './api-pix-routes.js';
import { createApiPixState } from './api-pix-state.js';
import { createApiPixTokens } from './api-pix-tokens.js';
import { makeRunCertificates, type ApiPixCertificatePaths } from './run-certificates.js';
import { serveApiPixRequest, type ApiPixRequestLogEntry } from './serve-api-pix-request.js';

export interface ApiPixEmulator {
  /** e.g. `https://127.0.0.1:41234`: the client's `baseUrl`; the token is at `${url}/oauth/token`. */
  readonly url: string;
  readonly port: number;
  readonly profile: 'api-pix';
  /** File paths of the run's certificates: the server's (the merchant's receiver may serve it too), the client's (both the merchant's API client and the emulator's webhook calls present it), and the CA that signed both. */
  readonly certificates: ApiPixCertificatePaths;
  /** The OAuth2 credentials in force and the merchant's key. */
  readonly credentials: { clientId: string; clientSecret: string; pixKey: string };
  /** Pays a charge (`amountInCents` another amount): a Pix with its txid, notified. */
  pay(txid: string, payment?: { amountInCents?: number; infoPagador?: string }): Record<string, unknown>;
  /** A Pix to a key without a txid (a static QR code or a key transfer); notified unless `notify: false`. */
  pixToKey(input: { amountInCents: number; key?: string; infoPagador?: string; notify?: boolean }): Record<string, unknown>;
  /** A refund the PSP settles on its own (`natureza` `MED_FRAUDE` for a MED return), notified. */
  refund(
    endToEndId: string,
    input?: { id?: string; amountInCents?: number; status?: 'DEVOLVIDO' | 'NAO_REALIZADO'; natureza?: string },
  ): Record<string, unknown>;
  expire(txid: string): Record<string, unknown>;
  revokeTokens(): void;
  injectFault(fault: ApiPixRequestFault): void;
  injectDeliveryFault(fault: ApiPixDeliveryFault): ActiveDeliveryFault | { action: string };
  clearDeliveryFaults(): void;
  deliveries(): readonly ApiPixDelivery[];
  requests(): readonly ApiPixRequestLogEntry[];
  /** Every Pix received so far, oldest first, as `GET /pix` shows them. */
  pix(): Record<string, unknown>[];
  /** Resolves once every Pix received so far is sent and every delivery settled. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** Starts an emulated standard PSP (bacen/pix-api) on `127.0.0.1` over mTLS, with certificates made for this run. */
export async function startApiPixEmulator(options: ApiPixEmulatorOptions): Promise<ApiPixEmulator> {
  const config = resolveApiPixEmulatorOptions(options);
  if (config.certificatesDir !== undefined) return startIn(config, options, config.certificatesDir);
  const dir = await mkdtemp(join(tmpdir(), 'pixhook-api-pix-'));
  try {
    return await startIn(config, options, dir);
  } catch (error) {
    // A start that fails (its port taken) leaves no certificates behind.
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

async function startIn(config: ResolvedApiPixEmulatorOptions, options: ApiPixEmulatorOptions, dir: string): Promise<ApiPixEmulator> {
  const certificates = await makeRunCertificates(dir, config.hosts);
  const closing = new AbortController();
  setMaxListeners(0, closing.signal);
  const faults = createApiPixFaults(config);
  const deliveries = createApiPixDeliveries({
    tls: { cert: certificates.pem.clientCert, key: certificates.pem.clientKey, ca: certificates.pem.ca },
    retry: config.retry,
    timeoutMs: config.deliveryTimeoutMs,
    groupWindowMs: config.groupWindowMs,
    maxGroup: config.maxGroup,
    now: config.now,
    faults: faults.deliveries,
    takeShape: faults.takeShape,
    disableAfterFailures: faults.disableAfter,
    closed: closing.signal,
  });
  const tokens = createApiPixTokens(config);
  const log: ApiPixRequestLogEntry[] = [];
  const settleTimers = new Set<ReturnType<typeof setTimeout>>();
  let locationHost = 'pix.emulator.local';

  const state = createApiPixState({
    now: config.now,
    ispb: '12345678',
    get locationHost() {
      return locationHost;
    },
    notify: (pix) => deliveries.enqueue(state.webhookFor(pix.chave), pix, state.pixJson(pix)),
  });

  // A refund the merchant requested settles on its own after `refundSettleMs`, as a PSP's does.
  function scheduleSettle(e2eid: string, id: string): void {
    const timer = setTimeout(() => {
      settleTimers.delete(timer);
      state.settleRefund(e2eid, id, 'DEVOLVIDO');
    }, config.refundSettleMs);
    settleTimers.add(timer);
  }

  function pixToKey(input: PixToKeyInput) {
    return state.pixToKey({
      chave: input.key ?? config.pixKey,
      amountInCents: input.amountInCents,
      infoPagador: input.infoPagador,
      notify: input.notify ?? true,
    });
  }

  const routes = [
    ...pspRoutes(state, scheduleSettle),
    ...controlRoutes({ state, faults, deliveries: () => deliveries.deliveries(), pixToKey, revokeTokens: tokens.revoke }),
  ];
  const handle = serveApiPixRequest({ routes, tokens, requestFaults: faults.requests, log, onRequest: options.onRequest });
  const server = createServer(
    {
      cert: certificates.pem.serverCert,
      key: certificates.pem.serverKey,
      ca: certificates.pem.ca,
      requestCert: true,
      rejectUnauthorized: true,
    },
    (request, response) => void handle(request, response),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `https://${host}:${port}`;
  locationHost = `${host}:${port}`;

  return {
    url,
    port,
    profile: 'api-pix',
    certificates: certificates.paths,
    credentials: { clientId: config.clientId, clientSecret: config.clientSecret, pixKey: config.pixKey },
    pay: (txid, payment = {}) => state.pay(txid, payment),
    pixToKey: (input) => pixToKey(input),
    refund: (e2eid, input = {}) => state.finalRefund(e2eid, input),
    expire: (txid) => state.expire(txid),
    revokeTokens: tokens.revoke,
    injectFault: (fault) => faults.requests.add(controlBody(requestFaultSchema, Buffer.from(JSON.stringify(fault)))),
    injectDeliveryFault: faults.addDeliveryFault,
    clearDeliveryFaults: faults.clearDeliveryFaults,
    deliveries: () => deliveries.deliveries(),
    requests: () => log,
    pix: () => state.pix(),
    idle: () => deliveries.idle(),
    async close() {
      closing.abort();
      deliveries.stop();
      for (const timer of settleTimers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await deliveries.idle();
      // Certificates it made in a temp directory of its own go with it; a given directory is the caller's.
      if (config.certificatesDir === undefined) await rm(dir, { recursive: true, force: true });
    },
  };
}
