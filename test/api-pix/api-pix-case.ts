// The shape of one API Pix contract case, and the request builders the cases share.
import type { ApiPixAuth, ApiPixReceiverOptions } from '../../src/api-pix/index.js';
import type { PixEvent } from '../../src/index.js';
import type { AuthMode, Certificates, PixRequest } from './api-pix-targets.js';

export interface Expectation {
  status: number;
  /** The reason code in the body (`error` for failures, `reason` on a 200 that has one). */
  reason?: string;
  /** Response headers that must be present (lower-case names). */
  headers?: Record<string, string | RegExp>;
}

/** The TLS handshake refuses the client: no HTTP answer at all. */
export const handshakeRefused = { refused: 'handshake' } as const;

/** A request; `raw` ones go out as written, the others get the mode's valid credentials added. */
export type CaseRequest = PixRequest & { raw?: boolean };

export type Step =
  | { send: CaseRequest; expect: Expectation | typeof handshakeRefused }
  /** Several calls at once: `handledNow` answer a plain 200, each other one 503 in_flight or 200 duplicate. */
  | { concurrently: CaseRequest[]; handledNow: number }
  /** Waits for work the receiver still runs after answering (deadline passed, background mode). */
  | { drain: true }
  /** Lets a blocked handler finish. */
  | { release: true };

export interface ApiPixCase {
  name: string;
  /** The auth modes the case applies to. Default: all. */
  modes?: readonly AuthMode[];
  /** Calls from two peer addresses: skipped where the adapter is given none (the App Router). */
  needsPeerAddress?: boolean;
  options?: Partial<ApiPixReceiverOptions>;
  /** Replaces the mode's default auth. */
  auth?: (certs: Certificates) => ApiPixAuth;
  /** How the handler behaves; default: succeeds at once. `failOnceFor`: the first run for that endToEndId throws. */
  handler?: 'ok' | 'fail-once' | 'always-fail' | 'blocked' | { failOnceFor: string };
  steps: Step[];
  /** Events the handler completed. */
  handled: number;
  /** Handler runs, failed ones included. Default: not checked. */
  runs?: number;
  /** Calls (or items) reported to `onInvalid`. Default 0. */
  invalid?: number;
  check?: (events: PixEvent[]) => void;
}

const encoder = new TextEncoder();

/** A POST with a JSON body to the mount path plus `suffix`. */
export function post(body: string | Uint8Array, suffix = '/pix', headers: Record<string, string> = {}): CaseRequest {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? encoder.encode(body) : body,
    path: suffix,
  };
}

/** Throws with the event when the condition fails (a case's `check`). */
export function expectEvent(condition: boolean, what: string, event: unknown): void {
  if (!condition) throw new Error(`${what}: ${JSON.stringify(event)}`);
}
