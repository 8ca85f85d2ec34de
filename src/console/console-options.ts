import type { Receiver } from '../index.js';
import type { PaymentBook } from '../book/payment-book.js';
import type { DeliveryJournal } from '../journal/delivery-journal.js';
import type { ListingReconcilerMetrics, ListingRunResult, ReconcilerMetrics, RunResult } from '../reconcile/index.js';
import type { Logger } from '../shared/logger.js';
import { checkObject, mustBe } from '../shared/option-checks.js';
import type { ConsoleSandbox } from './console-sandbox.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

/** One kept body as a quarantine lists it (the shape of `redisQuarantine().list()`). */
export interface QuarantineRow {
  id: string;
  reason: 'json_invalid' | 'payload_invalid';
  message: string;
  receivedAt: string;
  lastReceivedAt?: string;
  deliveries?: number;
  size: number;
}

/** What the console reads of a quarantine: `redisQuarantine()` and `memoryQuarantine()` both fit. */
export interface ConsoleQuarantine {
  list(range?: { start?: number; end?: number }): Promise<QuarantineRow[]>;
  show(id: string): Promise<(QuarantineRow & { bytes: Uint8Array; headers?: Record<string, string> }) | undefined>;
  /** Drops a body once its Replay succeeded (as `pixhook worker quarantine replay` does); without it the body stays. */
  remove?(id: string): Promise<boolean>;
}

/** A dead letter as `createDurableQueue().listDeadLetters()` gives it. */
export interface DeadLetterRow {
  key: string;
  name: string;
  receivedAt: string;
  payload: unknown;
  failedReason: string;
  attemptsMade: number;
  failedAt?: string;
}

/** What the console reads of a durable queue (`createDurableQueue()` from pixhook/redis fits). */
export interface ConsoleQueue {
  listDeadLetters(range?: { start?: number; end?: number }): Promise<DeadLetterRow[]>;
  /** Puts the job back with fresh attempts; its run claims the dedupe key as any job does. */
  replayDeadLetter(key: string): Promise<boolean>;
}

/** One reconciler pass the console saw (see `recordReconcilerRuns`). */
export interface ReconcilerRun extends RunResult {
  /** ISO 8601, when the pass ended. */
  at: string;
  /** Charges that were due in this pass: read, plus left for later. */
  due: number;
}

/**
 * What the console reads of a reconciler: `metrics()`, and its passes when it keeps them. The watch reconciler
 * (`createReconciler`) or the API Pix listing one (`createListingReconciler`), whose page shows its cursor's lag.
 */
export interface ConsoleReconciler {
  metrics(): Promise<ReconcilerMetrics | ListingReconcilerMetrics>;
  /** One pass now ("Run now"). */
  runOnce?(): Promise<RunResult | ListingRunResult>;
  /** Recent passes, newest first (`recordReconcilerRuns` keeps them). */
  runs?(): readonly ReconcilerRun[];
}

export interface ConsoleOptions {
  /** Every delivery: the Deliveries pages, the live updates and the charts read it. */
  journal: DeliveryJournal;
  /** Charges and transfers, held events and disputes. */
  book?: PaymentBook;
  /** Verified bodies that could not be read as events, with Replay (needs `receiver`). */
  quarantine?: ConsoleQuarantine;
  /** The durable queue, for its dead letters and their Replay. */
  queue?: ConsoleQueue;
  reconciler?: ConsoleReconciler;
  /** The receiver whose handlers Release and Replay run (through its dedupe store and book). */
  receiver?: Receiver;
  /**
   * Required for any use beyond this machine. Without it the console answers loopback requests only
   * (`Host` and peer address); with it, every request needs `Authorization: Bearer <token>` or the
   * cookie set by opening `?token=<token>` once.
   */
  token?: string;
  /**
   * The path it is mounted under, e.g. `/console`. Default: Express's `req.baseUrl` for the node
   * handler, else `''` (mounted at the root).
   */
  basePath?: string;
  /** The sandbox page's controls (`pixhook dev` gives it). */
  sandbox?: ConsoleSandbox;
  /** A watchdog (`createWatchdog`): its active alerts show as a banner on every page and at `/api/watchdog`. */
  watchdog?: { active(): readonly { kind: string; message: string; at: string }[] };
  /** Where the console reports a failing part (a journal, book or quarantine that throws). */
  logger?: Logger;
}

export interface ResolvedConsoleOptions extends Omit<ConsoleOptions, 'basePath' | 'token'> {
  basePath: string | undefined;
  token: string | undefined;
}

const methodsOf: Record<string, readonly string[]> = {
  journal: ['add', 'get', 'list', 'subscribe'],
  book: ['get', 'held', 'dismiss', 'disputes'],
  quarantine: ['list', 'show'],
  queue: ['listDeadLetters', 'replayDeadLetter'],
  reconciler: ['metrics'],
  receiver: ['release', 'receive'],
  sandbox: ['charges', 'createCharge', 'pay'],
  watchdog: ['active'],
};

/** Every option checked once, in the house format. */
export function resolveConsoleOptions(options: ConsoleOptions): ResolvedConsoleOptions {
  refuseUnknownOptions(options, consoleOptionNames, 'createConsole');
  checkObject('options', options, 'an object ({ journal, book?, quarantine?, queue?, reconciler?, receiver?, token?, basePath? })');
  for (const [name, methods] of Object.entries(methodsOf)) {
    const value = (options as unknown as Record<string, unknown>)[name];
    if (value === undefined && name !== 'journal') continue;
    const ok =
      typeof value === 'object' && value !== null && methods.every((m) => typeof (value as Record<string, unknown>)[m] === 'function');
    if (!ok) throw mustBe(name, `an object with ${methods.map((m) => `${m}()`).join(', ')}`, value);
  }
  const token = options.token;
  if (token !== undefined && (typeof token !== 'string' || token.trim().length < 16))
    throw mustBe(
      'token',
      'a string of at least 16 characters (a random one: openssl rand -hex 16)',
      typeof token === 'string' ? '(a shorter string)' : token,
    );
  const basePath = options.basePath;
  if (basePath !== undefined && (typeof basePath !== 'string' || !/^(\/[A-Za-z0-9._~-]+)*$/.test(basePath)))
    throw mustBe('basePath', 'a path like "/console" (no trailing slash; "" for the root)', basePath);
  return { ...options, basePath, token };
}

/** Every option createConsole takes. */
const consoleOptionNames = optionNames<ConsoleOptions>()([
  'journal',
  'book',
  'quarantine',
  'queue',
  'reconciler',
  'receiver',
  'token',
  'basePath',
  'sandbox',
  'watchdog',
  'logger',
]);
