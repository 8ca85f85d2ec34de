import type { InvalidDelivery, QuarantineStore } from './quarantine-store.js';
import { refuseUnknownOptions } from '../shared/known-options.js';

/** One kept body, without its bytes. */
export interface MemoryQuarantineRow {
  /** sha256 hex of the bytes. */
  id: string;
  reason: InvalidDelivery['reason'];
  message: string;
  receivedAt: string;
  lastReceivedAt: string;
  deliveries: number;
  size: number;
}

/** `redisQuarantine`'s reading side, in this process: what the console and tests read. */
export interface MemoryQuarantine extends QuarantineStore {
  /** Newest first (by last delivery). */
  list(range?: { start?: number; end?: number }): Promise<MemoryQuarantineRow[]>;
  show(id: string): Promise<(InvalidDelivery & MemoryQuarantineRow) | undefined>;
  remove(id: string): Promise<boolean>;
}

/** A bounded quarantine in memory (default 1000 bodies, the one delivered longest ago dropped first), one copy per body. */
export function memoryQuarantine(options: { max?: number } = {}): MemoryQuarantine {
  refuseUnknownOptions(options, ['max'], 'memoryQuarantine');
  const max = Math.max(1, Math.floor(options.max ?? 1000));
  const kept = new Map<string, InvalidDelivery & MemoryQuarantineRow>();
  return {
    async put(delivery) {
      const id = await sha256Hex(delivery.bytes);
      const now = new Date().toISOString();
      const before = kept.get(id);
      kept.delete(id);
      kept.set(id, {
        ...delivery,
        bytes: new Uint8Array(delivery.bytes),
        id,
        receivedAt: before?.receivedAt ?? delivery.receivedAt,
        lastReceivedAt: now,
        deliveries: (before?.deliveries ?? 0) + 1,
        size: delivery.bytes.byteLength,
      });
      if (kept.size > max) kept.delete(kept.keys().next().value!);
      return id;
    },
    async list(range = {}) {
      const start = Math.max(0, Math.trunc(range.start ?? 0));
      const end = Math.trunc(range.end ?? start + 99);
      return [...kept.values()]
        .reverse()
        .slice(start, end + 1)
        .map(({ id, reason, message, receivedAt, lastReceivedAt, deliveries, size }) => ({
          id,
          reason,
          message,
          receivedAt,
          lastReceivedAt,
          deliveries,
          size,
        }));
    },
    async show(id) {
      const found = kept.get(id);
      return found === undefined ? undefined : { ...found, bytes: new Uint8Array(found.bytes) };
    },
    async remove(id) {
      return kept.delete(id);
    },
  };
}

/** Web Crypto, not node:crypto: the core also runs in browsers and workers (pixhook/web's import graph). */
async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new Uint8Array(bytes)));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
