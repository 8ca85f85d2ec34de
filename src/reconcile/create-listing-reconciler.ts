import { readPixItem } from '../api-pix/index.js';
import { checkItemKey } from '../sources/api-pix/key-check.js';
import type { PixEvent } from '../index.js';
import { describeError } from '../shared/describe-error.js';
import { guardLogger } from '../shared/logger.js';
import { PixhookError } from '../shared/pixhook-error.js';
import { resolveListingOptions, type ListedPix, type ListingReconcilerOptions } from './listing-reconciler-options.js';

/** What one run of the listing reconciler did. */
export interface ListingRunResult {
  /** `GET /pix` windows walked to their end. */
  windows: number;
  /** Pix listed (a Pix in two overlapping windows counts twice). */
  listed: number;
  /** Events handed to processing and handled: the webhook had missed them. */
  recovered: number;
  /** Events already handled (by the webhook, or an earlier window). */
  duplicates: number;
  /** Events the payment book held (wrong amount, unknown charge, …): handled, waiting for a person. */
  held: number;
  /** Events processing did not handle (in flight, a handler failed, a store outage): the cursor stays before them. */
  failed: number;
  /** Why the run stopped before reaching now, if it did (a spent read budget, a 429, no answer). */
  stoppedBy?: Error;
  /** The cursor after the run, epoch milliseconds. */
  cursor: number;
}

export interface ListingReconcilerMetrics {
  /**
   * Epoch milliseconds up to which every listed Pix was handed to processing: the saved cursor, or before any was
   * saved the moment the first run lists from (`from`, default 24 hours before the reconciler was made).
   */
  cursor: number;
  /** How far the cursor is behind now, in milliseconds (the cursor's age). */
  lagMs: number;
  runs: number;
  listed: number;
  recovered: number;
  duplicates: number;
  held: number;
  failed: number;
}

export interface ListingReconciler {
  /** Walks the windows from the cursor up to now (at most `maxWindowsPerRun`). Never two runs at once. */
  runOnce(): Promise<ListingRunResult>;
  /** Runs now, then every `everyMs`. */
  start(): void;
  /** Stops the timer and waits for the run in progress; safe to call twice. */
  stop(): Promise<void>;
  metrics(): Promise<ListingReconcilerMetrics>;
}

const dayMs = 86_400_000;
const refundStatusNames = { processing: 'EM_PROCESSAMENTO', returned: 'DEVOLVIDO', not_returned: 'NAO_REALIZADO' } as const;
const decimal = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

/** The standard's Pix body again, so the event is the one the webhook would have carried (same reader, same dedupe key). */
function standardPix(pix: ListedPix): Record<string, unknown> {
  return {
    endToEndId: pix.endToEndId,
    ...(pix.txid !== undefined && { txid: pix.txid }),
    valor: decimal(pix.amountInCents),
    ...(pix.key !== undefined && { chave: pix.key }),
    horario: pix.paidAt,
    ...(pix.payerInfo !== undefined && { infoPagador: pix.payerInfo }),
    ...(pix.components !== undefined && {
      componentesValor: Object.fromEntries(Object.entries(pix.components).map(([name, cents]) => [name, { valor: decimal(cents) }])),
    }),
    ...(pix.refunds.length > 0 && {
      devolucoes: pix.refunds.map((refund) => ({
        id: refund.id,
        rtrId: refund.rtrId,
        valor: decimal(refund.amountInCents),
        ...(refund.nature !== undefined && { natureza: refund.nature }),
        ...(refund.description !== undefined && { descricao: refund.description }),
        horario: {
          ...(refund.requestedAt !== undefined && { solicitacao: refund.requestedAt }),
          ...(refund.settledAt !== undefined && { liquidacao: refund.settledAt }),
        },
        status: refundStatusNames[refund.status],
        ...(refund.reason !== undefined && { motivo: refund.reason }),
      })),
    }),
  };
}

/**
 * Recovers what the webhook missed by walking the standard's `GET /pix?inicio&fim` in windows from a persisted
 * cursor, handing every Pix (and its refunds) to the same processing as the webhook (`source: 'reconcile'`):
 * a Pix already handled is a `duplicate`, one missed is handled once. The cursor never moves past a Pix that was
 * not handed to processing.
 */
export function createListingReconciler(options: ListingReconcilerOptions): ListingReconciler {
  const config = resolveListingOptions(options);
  const logger = guardLogger(config.logger);
  const startAt = config.from ?? config.now() - dayMs;
  const totals = { runs: 0, listed: 0, recovered: 0, duplicates: 0, held: 0, failed: 0 };
  let saved: number | undefined;
  let running: Promise<ListingRunResult> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = true;
  // A processing with a payment book (createProcessing({ book })) can hold what another key received.
  const hasBook = (config.processing as { hasBook?: unknown }).hasBook === true;

  async function report(endToEndId: string, error: Error): Promise<void> {
    logger.error(
      { endToEndId, error: error.message },
      'pixhook reconcile: a listed Pix could not be made into an event; it is reported and passed',
    );
    try {
      await config.onError?.({ endToEndId, error });
    } catch (thrown) {
      logger.warn({ endToEndId, error: describeError(thrown) }, 'pixhook reconcile: onError threw');
    }
  }

  /** Hands one listed Pix's events to processing; false when one of them was not handled. */
  async function hand(pix: ListedPix, result: ListingRunResult): Promise<boolean> {
    const read = readPixItem(standardPix(pix), '', 'reconcile');
    const failures = [...read.failures];
    // The receiver's key check, as on the webhook: a Pix to another key is held (`unknown_key`) or never run.
    const events =
      config.keys === undefined
        ? read.events
        : checkItemKey(read.events, config.keys, hasBook, '', failures, (seen) =>
            logger.warn(
              { endToEndId: pix.endToEndId, key: seen ?? '(none)' },
              'pixhook reconcile: a listed Pix names a key outside `keys`; it is not run as your money',
            ),
          );
    for (const failure of failures) {
      await report(
        pix.endToEndId,
        new PixhookError('response_invalid', `pixhook reconcile: Pix ${pix.endToEndId}: ${failure.path}: ${failure.message}`),
      );
    }
    let handled = true;
    for (const event of events) {
      let reason: string | undefined;
      try {
        reason = (await config.processing.accept(event as PixEvent)).reason;
      } catch (error) {
        reason = `threw: ${describeError(error)}`;
      }
      if (reason === undefined) {
        result.recovered++;
        try {
          config.onRecovered?.(event as PixEvent);
        } catch (error) {
          logger.warn({ endToEndId: pix.endToEndId, error: describeError(error) }, 'pixhook reconcile: onRecovered threw');
        }
      } else if (reason === 'duplicate' || reason === 'unknown_event') result.duplicates += reason === 'duplicate' ? 1 : 0;
      else if (reason === 'held') result.held++;
      else {
        result.failed++;
        handled = false;
        logger.warn(
          { endToEndId: pix.endToEndId, event: event.name, reason },
          'pixhook reconcile: not handled; the cursor stays before it',
        );
      }
    }
    return handled;
  }

  async function save(position: number): Promise<void> {
    await config.cursorStore.set(config.name, position);
    saved = position;
  }

  async function run(): Promise<ListingRunResult> {
    let cursor = (await config.cursorStore.get(config.name)) ?? startAt;
    saved = cursor;
    const result: ListingRunResult = { windows: 0, listed: 0, recovered: 0, duplicates: 0, held: 0, failed: 0, cursor };
    const horizon = config.now() - config.settleMs;
    for (let w = 0; w < config.maxWindowsPerRun && cursor < horizon; w++) {
      const start = cursor - config.overlapMs;
      const end = Math.min(cursor + config.windowMs, horizon);
      // The earliest Pix not handed to processing, and whether the PSP lists in time order (then a window cut
      // short by an error is still sure up to the last Pix handled).
      let pinned: number | undefined;
      let ordered = true;
      let lastAt: number | undefined;
      try {
        for await (const pix of config.client.listPix({
          from: new Date(start).toISOString(),
          to: new Date(end).toISOString(),
          pageSize: config.pageSize,
        })) {
          result.listed++;
          const at = Date.parse(pix.paidAt);
          if (lastAt !== undefined && at < lastAt) ordered = false;
          if (!(await hand(pix, result)) && Number.isFinite(at)) pinned = Math.min(pinned ?? at, at);
          if (Number.isFinite(at)) lastAt = Math.max(lastAt ?? at, at);
        }
      } catch (error) {
        result.stoppedBy = error instanceof Error ? error : new Error(String(error));
        const sure = ordered && lastAt !== undefined && lastAt > cursor ? lastAt : cursor;
        const next = pinned === undefined ? sure : Math.min(pinned, sure);
        if (next !== cursor) await save((cursor = next));
        logger.warn(
          { error: describeError(error), cursor: new Date(cursor).toISOString() },
          'pixhook reconcile: the listing stopped; the next run goes on from the cursor',
        );
        break;
      }
      result.windows++;
      if (pinned !== undefined) {
        await save((cursor = pinned));
        break;
      }
      await save((cursor = end));
    }
    result.cursor = cursor;
    if (result.listed === 0 && cursor >= horizon && config.settleMs > 0) {
      // Not silent: a Pix paid a moment ago is not listed yet, and a first run right after a payment lists nothing.
      logger.info(
        { cursor: new Date(cursor).toISOString(), settleMs: config.settleMs },
        `pixhook reconcile: listed up to ${new Date(horizon).toISOString()}; a Pix of the last ${Math.round(config.settleMs / 1000)} s is listed once it is settleMs old (the PSP may still be adding it)`,
      );
    }
    totals.runs++;
    totals.listed += result.listed;
    totals.recovered += result.recovered;
    totals.duplicates += result.duplicates;
    totals.held += result.held;
    totals.failed += result.failed;
    return result;
  }

  function runOnce(): Promise<ListingRunResult> {
    running ??= run().finally(() => {
      running = undefined;
    });
    return running;
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      void runOnce()
        .catch((error: unknown) =>
          logger.error({ error: describeError(error) }, 'pixhook reconcile: the listing run failed; it runs again later'),
        )
        .finally(schedule);
    }, config.everyMs);
    (timer as { unref?: () => void }).unref?.();
  }

  return {
    runOnce,
    start() {
      if (!stopped) return;
      stopped = false;
      void runOnce()
        .catch((error: unknown) =>
          logger.error({ error: describeError(error) }, 'pixhook reconcile: the listing run failed; it runs again later'),
        )
        .finally(schedule);
    },
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
    async metrics() {
      const cursor = saved ?? (await config.cursorStore.get(config.name)) ?? startAt;
      return { cursor, lagMs: Math.max(0, config.now() - cursor), ...totals };
    },
  };
}
