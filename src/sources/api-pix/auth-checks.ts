import type { PeerConnection } from '../../shared/peer-connection.js';
import { describeGiven } from '../../shared/option-checks.js';
import { PixhookConfigError } from '../../shared/pixhook-error.js';
import type { HeaderSource } from '../../shared/read-header.js';
import type { MaybePromise } from '../../shared/maybe-promise.js';
import { refuseUnknownOptions } from '../../shared/known-options.js';

export type AuthFailure =
  'client_certificate_required' | 'client_certificate_rejected' | 'url_secret_mismatch' | 'proxy_secret_mismatch' | 'address_not_allowed';

/** Why a call was refused: its reason code, and a private hint for the log that names the real cause (never a secret). */
export interface AuthRefusal {
  reason: AuthFailure;
  hint: string;
}

interface AuthCheckInput {
  headers: HeaderSource;
  url?: string | undefined;
  peer?: PeerConnection | undefined;
}

export interface ResolvedAuth {
  mode: 'mtls' | 'proxy' | 'urlSecret';
  /** True when the adapter must hand over the TLS socket's verdict (`mtls`). */
  needsTls: boolean;
  /** True when the check reads the peer's address (`proxy`, `urlSecret.allowFrom`): a runtime that gives none must say so. */
  needsAddress: boolean;
  /** `undefined` when the request is authenticated; otherwise the reason, and a private hint for logs. */
  check(input: AuthCheckInput): MaybePromise<AuthRefusal | undefined>;
}

export function refuseUnknown(mode: string, options: Record<string, unknown>, known: readonly string[]): void {
  refuseUnknownOptions(options, known, 'createApiPixReceiver', `auth.${mode}.`);
}

/** An optional non-empty list of non-empty strings. */
export function stringList(name: string, value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0 || value.some((v) => typeof v !== 'string' || v.trim() === ''))
    throw new PixhookConfigError(`pixhook: \`${name}\` must be a non-empty list of non-empty strings, got ${describeGiven(value)}.`);
  return value as string[];
}

/** A secret the operator chose: a string of at least 16 characters (never echoed back in the error). */
export function secretOption(name: string, value: unknown, what: string): string {
  if (typeof value !== 'string' || value.trim().length < 16)
    throw new PixhookConfigError(`pixhook: \`${name}\` must be a string of at least 16 characters (${what}).`);
  return value;
}

/** Hex of a fingerprint in any of the usual spellings (`AB:CD…`, `abcd…`), or undefined. */
export function normalizeFingerprint(text: string): string | undefined {
  const hex = text.replace(/[:\s]/g, '').toLowerCase();
  return /^[0-9a-f]{40}$|^[0-9a-f]{64}$/.test(hex) ? hex : undefined;
}

export function fingerprintSet(name: string, value: unknown, sha256Only: boolean): ReadonlySet<string> | undefined {
  const list = stringList(name, value);
  if (list === undefined) return undefined;
  return new Set(
    list.map((entry, i) => {
      const hex = normalizeFingerprint(entry);
      if (hex === undefined || (sha256Only && hex.length !== 64))
        throw new PixhookConfigError(
          `pixhook: \`${name}[${String(i)}]\` must be a ${sha256Only ? 'SHA-256' : 'SHA-1 or SHA-256'} fingerprint in hex.`,
        );
      return hex;
    }),
  );
}

const encoder = new TextEncoder();

/** A comparer for one secret: constant time in the secret's length, every byte compared whatever the first difference. */
export function secretComparer(secret: string): (given: string | undefined) => boolean {
  const expected = encoder.encode(secret);
  return (given) => given !== undefined && sameBytes(encoder.encode(given), expected);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i % Math.max(a.length, 1)] ?? 0) ^ b[i]!;
  return diff === 0;
}
