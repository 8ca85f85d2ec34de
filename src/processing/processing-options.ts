import type { DedupeStore } from '../dedupe/dedupe-store.js';
import { memoryDedupeStore } from '../dedupe/memory-dedupe-store.js';
import { sourceKey } from '../sources/keys.js';
import type { EventSource, PixEvent, Provider } from '../events/event-types.js';
import { guardLogger, withTraceFields, type Logger } from '../shared/logger.js';
import type { Telemetry } from '../shared/telemetry.js';
import { checkTimeoutMs, checkTtlMs, maxDelayMs, optionalNumber, refuseRenamed } from '../shared/option-checks.js';
import { resolveRetry, type RetryOptions, type RetryPolicy } from '../shared/retry-options.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import { describeGiven } from '../shared/option-checks.js';
import { optionNames } from '../shared/known-options.js';
import type { PaymentBook } from '../book/payment-book.js';
import { checkPolicy, type PaymentPolicy, type ResolvedPolicy } from '../book/payment-policy.js';
import { resolveConfirm, type ConfirmSetting, type ResolvedConfirm } from '../book/confirm-with-gateway.js';
import type { DeliveryJournal } from '../journal/delivery-journal.js';
import { checkJournal } from '../journal/journal-writer.js';

export type AckMode = 'inline' | 'background' | 'durable';

/** A verified, claimed event handed to a durable queue. Plain strings: serializing it cannot fail. */
export interface QueuedEvent {
  /** The dedupe key; durable queues use it as the job id so they refuse duplicates too. */
  key: string;
  name: string;
  /**
   * The verified body, exactly as received (UTF-8 JSON); the worker reads it again. For a PSP's event
   * (`provider` set): the event as intake read it, after its confirmation, as JSON.
   */
  body: string;
  /** Set for a PSP's event (`pixhook/psp`): the worker rebuilds the event from `body`, without the PSP's credentials or API. */
  provider?: Provider;
  source: EventSource;
  receivedAt: string;
  /** Trace context of the delivery (W3C `traceparent`), so the handler's span links to it. */
  trace?: Record<string, string>;
  /** The delivery's journal entry, so a worker with a `journal` appends its runs to it. */
  journalId?: string;
  /** Set by a dead-letter replay: the worker's runs are journaled as replay runs. */
  replayOf?: string;
}

/** Where `durable` mode writes events before answering 200 (see `pixhook/redis`). */
export interface EventQueue {
  /**
   * Writes the job. A queue that `claims` answers `'duplicate'` when it already holds a job of `event.key`
   * (and writes none); any other queue answers nothing.
   */
  enqueue(event: QueuedEvent): Promise<void | 'duplicate'>;
  /**
   * True when the enqueue is itself the claim (`createDurableQueue`'s: one atomic add per key): the receiver then
   * makes no dedupe store call for the event, and answers `duplicate` from the queue. Default false: the
   * receiver claims the key in its store first, and marks it done once queued.
   */
  readonly claims?: boolean;
}

export interface BackgroundOptions {
  /** Handlers running at once. Default 10. */
  concurrency?: number;
  /** Events waiting or running before new ones get 503 `queue_full`. Default 10 000. */
  maxQueued?: number;
}

export interface ProcessingOptions {
  /** `inline` (default): handle, then answer. `background`: answer, then handle in memory. `durable`: queue, then answer. */
  mode?: AckMode;
  /** Dedupe store. Default: `memoryDedupeStore()`, bounded, in this process only. */
  store?: DedupeStore;
  /** Dedupe key of an event. Default `eventKey` (name, resource, status, amount and the event's own facts); a PSP's events (`pixhook/psp`) start with their provider. */
  dedupeKey?: (event: PixEvent) => string;
  /** How long a processed key answers `duplicate`. Default 24 h (covers the sender's 5 attempts). */
  dedupeTtlMs?: number;
  /**
   * How long a claim lives without renewal. Claims are renewed every quarter of this from the moment
   * they are taken, so only a dead instance's claim lapses: keep it well under the sender's retry
   * horizon (~15 s to the 5th attempt). Default 5 000 ms.
   */
  claimTtlMs?: number;
  /** Inline mode: answer 503 `handler_timeout` after this; the handler keeps running up to `handlerTimeoutMs`. Default 8 000 ms. */
  deadlineMs?: number;
  /**
   * A handler run past this counts as failed (its `context.signal` aborts): retried where the mode
   * retries, then `onError`, and the claim is released. Default: inline 30 s, background 60 s, durable 5 min.
   */
  handlerTimeoutMs?: number;
  /** Bound on every call to a remote store or queue. Default 2 000 ms. */
  storeTimeoutMs?: number;
  /**
   * How long an event waits for the handlers of an earlier event of the same charge or transfer (anywhere
   * the store is shared) before it is answered 503 `resource_busy` (its claim given back, so the retry runs
   * it in order). In durable mode, how long a worker waits for another worker's run of that resource. Default 5 000 ms.
   */
  orderWaitMs?: number;
  background?: BackgroundOptions;
  /**
   * Background mode: runs per event (first included) before `onError`, and the waits between them.
   * Default `{ attempts: 3, backoff: { delayMs: 500, factor: 2, maxDelayMs: 86400000 } }`.
   */
  retry?: RetryOptions;
  /** Required for `durable` mode. */
  queue?: EventQueue;
  /** Keeps work after the answer alive on serverless platforms (Next.js `after`, `ctx.waitUntil`). */
  waitUntil?: (promise: Promise<unknown>) => void;
  logger?: Logger;
  /** Spans and metrics (see `pixhook/otel`). Default: none. */
  telemetry?: Telemetry;
  /**
   * The payment book (`memoryPaymentBook()`): every event is recorded and checked against it after the
   * dedupe claim and before any named handler; see "Payment safety" in the README. Default: none.
   */
  book?: PaymentBook;
  /** Each violation reason set to `hold` or `flag`; the others keep their defaults. Needs a `book`. */
  policy?: PaymentPolicy;
  /**
   * Reads each money event (`transaction_paid`, `transaction_refunded`, `transfer_completed`) again from
   * the gateway before it runs (`GET /api/v1/transactions/{id}`): a record that disagrees on status or
   * amount, or a 404, is `not_confirmed`; a gateway that cannot be read answers 503 `gateway_unavailable`.
   * A pixhook/client client, or `{ client, timeoutMs?, events? }`. Needs a `book`.
   */
  confirm?: ConfirmSetting;
  /**
   * An open MED dispute this old (from its `openedAt`) is told to `onViolation` once, as `dispute_deadline`:
   * set it under the deadline you must answer by. Checked every minute (or every `disputeAlertMs`, if shorter).
   * Needs a `book`. Default: no alert.
   */
  disputeAlertMs?: number;
  /**
   * The delivery journal (`memoryJournal()`, `redisJournal`, `postgresJournal`): every delivery and each
   * handler run, written off the hot path; see docs/journal.md. Default: none.
   */
  journal?: DeliveryJournal;
}

export interface ResolvedProcessingOptions {
  mode: AckMode;
  store: DedupeStore;
  dedupeKey: (event: PixEvent) => string;
  dedupeTtlMs: number;
  claimTtlMs: number;
  deadlineMs: number;
  handlerTimeoutMs: number;
  /** The limit for durably queued jobs run by a worker (`runQueued`). */
  queuedHandlerTimeoutMs: number;
  storeTimeoutMs: number;
  orderWaitMs: number;
  background: Required<BackgroundOptions>;
  /** Background mode's retries (the default policy in the other modes, which do not read it). */
  retry: RetryPolicy;
  queue: EventQueue | undefined;
  waitUntil: ((promise: Promise<unknown>) => void) | undefined;
  logger: Logger;
  telemetry: Telemetry | undefined;
  book: PaymentBook | undefined;
  policy: ResolvedPolicy;
  confirm: ResolvedConfirm | undefined;
  disputeAlertMs: number | undefined;
  journal: DeliveryJournal | undefined;
}

const defaultHandlerTimeoutMs: Record<AckMode, number> = { inline: 30_000, background: 60_000, durable: 5 * 60_000 };
const backgroundRetryDefaults = { attempts: 3, backoff: { delayMs: 500, factor: 2, maxDelayMs } };
const backgroundRetryRenames = {
  attempts: '`retry: { attempts }` (a top-level option of createProcessing / createReceiver)',
  backoffMs: '`retry: { backoff: { delayMs } }` (a top-level option of createProcessing / createReceiver)',
  backoffFactor: '`retry: { backoff: { factor } }` (a top-level option of createProcessing / createReceiver)',
};

export function resolveProcessingOptions(options: ProcessingOptions): ResolvedProcessingOptions {
  const mode = options.mode ?? 'inline';
  if (!['inline', 'background', 'durable'].includes(mode)) {
    throw new PixhookConfigError(`pixhook: \`mode\` must be inline, background or durable, got "${String(mode)}".`);
  }
  if (mode === 'durable' && !options.queue) {
    throw new PixhookConfigError('pixhook: `queue` must be given in durable mode (see pixhook/redis: createDurableQueue).');
  }
  refuseRenamed(options.background, backgroundRetryRenames, 'background.');
  refuseIgnoredOptions(options, mode);
  const background = {
    concurrency: optionalNumber('background.concurrency', options.background?.concurrency, 10, { min: 1, max: 10_000 }),
    maxQueued: optionalNumber('background.maxQueued', options.background?.maxQueued, 10_000, { min: 1, max: 10_000_000 }),
  };
  // Every wait is capped (24 h by default), so none passes a timer's range.
  const retry = resolveRetry('retry', options.retry, backgroundRetryDefaults);
  return {
    mode,
    store: options.store ?? memoryDedupeStore(),
    dedupeKey: options.dedupeKey ?? sourceKey,
    dedupeTtlMs: checkTtlMs('dedupeTtlMs', options.dedupeTtlMs, 24 * 60 * 60 * 1000),
    claimTtlMs: checkTimeoutMs('claimTtlMs', options.claimTtlMs, 5_000),
    deadlineMs: checkTimeoutMs('deadlineMs', options.deadlineMs, 8_000),
    handlerTimeoutMs: checkTimeoutMs('handlerTimeoutMs', options.handlerTimeoutMs, defaultHandlerTimeoutMs[mode]),
    queuedHandlerTimeoutMs: checkTimeoutMs('handlerTimeoutMs', options.handlerTimeoutMs, defaultHandlerTimeoutMs.durable),
    storeTimeoutMs: checkTimeoutMs('storeTimeoutMs', options.storeTimeoutMs, 2_000),
    orderWaitMs: checkTimeoutMs('orderWaitMs', options.orderWaitMs, 5_000),
    background,
    retry,
    queue: options.queue,
    waitUntil: options.waitUntil,
    logger: withTraceFields(guardLogger(options.logger), options.telemetry),
    telemetry: options.telemetry,
    journal: checkJournal(options.journal),
    ...resolveBook(options),
  };
}

const bookMethods = ['record', 'retryOfHeld', 'claimRelease', 'finishRelease', 'renewRelease'] as const;

type BookSettings = Pick<ResolvedProcessingOptions, 'book' | 'policy' | 'confirm' | 'disputeAlertMs'>;

/** The book and what only a book reads (`policy`, `confirm`, `disputeAlertMs`): given without one, they are refused. */
function resolveBook(options: ProcessingOptions): BookSettings {
  const { book } = options;
  if (book === undefined) {
    for (const name of ['policy', 'confirm', 'disputeAlertMs'] as const) {
      if (options[name] !== undefined) {
        throw new PixhookConfigError(
          `pixhook: \`${name}\` needs a \`book\` (e.g. \`book: memoryPaymentBook()\`); without one no event is checked.`,
        );
      }
    }
    return { book, policy: checkPolicy(undefined), confirm: undefined, disputeAlertMs: undefined };
  }
  if (typeof book !== 'object' || book === null || bookMethods.some((name) => typeof book[name] !== 'function')) {
    throw new PixhookConfigError(`pixhook: \`book\` must be a payment book (e.g. memoryPaymentBook()), got ${describeGiven(book)}.`);
  }
  const disputeAlertMs = options.disputeAlertMs === undefined ? undefined : checkTtlMs('disputeAlertMs', options.disputeAlertMs);
  if (disputeAlertMs !== undefined && typeof book.disputes !== 'function') {
    throw new PixhookConfigError('pixhook: `disputeAlertMs` needs a book with `disputes()` (every pixhook payment book has one).');
  }
  return { book, policy: checkPolicy(options.policy), confirm: resolveConfirm(options.confirm), disputeAlertMs };
}

/** Options only one mode reads: given with another mode they would be ignored in silence, so they are refused. */
function refuseIgnoredOptions(options: ProcessingOptions, mode: AckMode): void {
  if (options.background !== undefined && mode !== 'background') {
    throw new PixhookConfigError(
      `pixhook: \`background\` applies to mode "background" only, got mode "${mode}"; remove it or set mode: "background".`,
    );
  }
  if (options.retry !== undefined && mode !== 'background') {
    const where =
      mode === 'durable' ? ' (a durable worker retries: startWorker({ retry }))' : ' (inline mode answers 5xx and the gateway retries)';
    throw new PixhookConfigError(
      `pixhook: \`retry\` applies to mode "background" only, got mode "${mode}"${where}; remove it or set mode: "background".`,
    );
  }
  if (options.queue !== undefined && mode !== 'durable') {
    throw new PixhookConfigError(
      `pixhook: \`queue\` applies to mode "durable" only, got mode "${mode}"; remove it or set mode: "durable".`,
    );
  }
  if (options.deadlineMs !== undefined && mode !== 'inline') {
    throw new PixhookConfigError(
      `pixhook: \`deadlineMs\` applies to mode "inline" only (it bounds the answer), got mode "${mode}"; use handlerTimeoutMs to bound runs.`,
    );
  }
}

/** Every processing option: with a shared `processing`, the receiver would ignore each of them. */
export const processingOptionNames = [
  'mode',
  'store',
  'dedupeKey',
  'dedupeTtlMs',
  'claimTtlMs',
  'deadlineMs',
  'handlerTimeoutMs',
  'storeTimeoutMs',
  'orderWaitMs',
  'background',
  'retry',
  'queue',
  'waitUntil',
  'book',
  'policy',
  'confirm',
  'disputeAlertMs',
  'journal',
] as const satisfies readonly (keyof ProcessingOptions)[];

/** Every option `createProcessing` takes. */
export const allProcessingOptionNames = optionNames<ProcessingOptions>()([...processingOptionNames, 'logger', 'telemetry']);
