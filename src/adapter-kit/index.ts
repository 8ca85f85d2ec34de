// The adapter kit: what `adapters/` and `cli/` need of a receiver and merchants never call. Not a
// package export; the lint boundaries let only adapters/ and cli/ import it (test/lint).
import type { Receiver, ReceiveRequest, ReceiverInternals } from '../intake/receiver-types.js';
import { internalsOf, withInternals } from '../intake/receiver-internals.js';
import type { ReceiveResult } from '../intake/receive-answer.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';

export { internalsOf } from '../intake/receiver-internals.js';
export type { ReceiverInternals } from '../intake/receiver-types.js';
export { assertKeptAlive } from './assert-kept-alive.js';
export { logToConsole, surfaceSafely } from './surface-error.js';
export { isPromise } from '../shared/maybe-promise.js';
export { optionNames, refuseUnknownOptions } from '../shared/known-options.js';
export type { PeerConnection, PeerTls } from '../intake/peer-connection.js';
export { handleNodeRequest, peerOf, serveFetchApp, serveNodeRequest } from './node-bridge.js';
export type { NodeRequest, NodeRequestInfo } from './node-bridge.js';

/**
 * The same receiver with its deliveries going through `receive` first (the CLI's `--forward-to`):
 * adapters given the copy call `receive` on their fast path; handlers and metrics stay the original's.
 */
export function withReceive(receiver: Receiver, receive: (request: ReceiveRequest) => Promise<ReceiveResult>): Receiver {
  // No body check: `receive` verifies the whole body itself.
  return withInternals({ ...receiver, receive }, { ...internalsOf(receiver), handle: receive, bodyCheck: undefined });
}

/**
 * Runtimes without a TLS socket (web, Next's App router) cannot serve API Pix `mtls`: refused where
 * the adapter is made (or, for a deferred receiver, on its first request) with the way out.
 */
export function refuseWithoutTls(receiver: ReceiverInternals, runtime: string, addressFix = ''): void {
  if (receiver.needsTls !== true) return;
  throw new PixhookConfigError(
    `pixhook: \`auth.mtls\` (API Pix) needs the TLS socket Node terminated, which ${runtime} does not expose. ` +
      `Terminate mTLS at a proxy (nginx: ssl_verify_client on) and use \`auth: { proxy: { from: [...], secret } }\` instead${addressFix}.`,
  );
}

/**
 * A runtime that gives no peer address (Next's App Router) cannot check API Pix `proxy` or
 * `urlSecret.allowFrom` unless the app says where the address comes from: refused, never a 403 on every call.
 */
export function refuseWithoutAddress(receiver: ReceiverInternals, runtime: string, fix: string): void {
  if (receiver.needsAddress !== true) return;
  throw new PixhookConfigError(
    `pixhook: \`clientAddress\` is required: API Pix \`auth.proxy\` and \`auth.urlSecret.allowFrom\` check the caller's address, which ${runtime} does not give. ${fix}`,
  );
}
