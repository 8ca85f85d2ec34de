import type { DeliveryJournal } from '../journal/delivery-journal.js';
import type { HeldEvent, DisputeWithAge } from '../book/payment-book.js';
import type { ReconcilerMetrics } from '../reconcile/index.js';
import { describeError } from '../shared/describe-error.js';
import { guardLogger, type Logger } from '../shared/logger.js';
import { checkInteger, checkObject, mustBe } from '../shared/option-checks.js';
import { redactSecrets } from '../shared/redact-secrets.js';
import { checkAlertUrl, postAlert } from './alert-post.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

export type WatchdogAlertKind = 'silent' | 'signature_failures' | 'reconciler_recovered' | 'held_too_long' | 'dispute_deadline';

export interface WatchdogAlert {
  kind: WatchdogAlertKind;
  /** One line for a person. */
  message: string;
  /** ISO 8601, when the watchdog first saw it. */
  at: string;
}

export interface WatchdogOptions {
  /** The journal the receivers write (genuine and forged deliveries). */
  journal: Pick<DeliveryJournal, 'list'>;
  /** Held events and disputes. */
  book?: { held(): Promise<HeldEvent[]>; disputes(filter?: { open?: boolean }): Promise<DisputeWithAge[]> };
  reconciler?: { metrics(): Promise<ReconcilerMetrics> };
  /**
   * Posts each new alert to this URL as JSON with a `text` field (what Slack's and Teams' incoming webhooks
   * show), plus `kind`, `message` and `at`. Retried on a network error, a 429 or a 5xx (3 attempts); a post that
   * still fails is logged as an error (or `process.emitWarning` without a logger) and counted in
   * `metrics().alertPostFailures`.
   */
  alertUrl?: string;
  /** Hears each new alert once (an alert stays active until its condition clears). */
  onAlert?: (alert: WatchdogAlert) => void;
  /** New alerts are logged as warnings; a failing check as an error. */
  logger?: Logger;
  /** No genuine delivery for this many minutes raises `silent`. Default 30. */
  silentAfterMinutes?: number;
  /** UTC hours when silence matters, `[from, to)`, e.g. `{ from: 11, to: 23 }` (08–20 in Brasília). Default all day. */
  activeHours?: { from: number; to: number };
  /** Unverified deliveries in the last minute above this raise `signature_failures`. Default 30. */
  maxSignatureFailuresPerMinute?: number;
  /** A held event waiting longer than this many minutes raises `held_too_long`. Default 60. */
  heldLongerThanMinutes?: number;
  /** An open dispute this many days old raises `dispute_deadline` (MED answers are due within days). Default 5. */
  disputeAlertAfterDays?: number;
  /** How often the checks run. Default 60 000 ms. */
  intervalMs?: number;
  /** The clock (tests inject one). Default `Date.now`. */
  now?: () => number;
}

export interface WatchdogMetrics {
  checks: number;
  /** Alerts raised since the watchdog started, by kind. */
  alerts: Record<WatchdogAlertKind, number>;
  /** Alerts active now. */
  active: number;
  /** Alerts posted to `alertUrl`, and posts that failed every attempt. */
  alertsPosted: number;
  alertPostFailures: number;
}

export interface Watchdog {
  /** Runs every check now; answers the active alerts. Never rejects (a failing check is logged). */
  check(): Promise<readonly WatchdogAlert[]>;
  /** The alerts active after the last check (the console's banner shows them). */
  active(): readonly WatchdogAlert[];
  metrics(): WatchdogMetrics;
  /** Stops the timer; `check()` still works. */
  close(): void;
}

const minute = 60_000;
const kinds: WatchdogAlertKind[] = ['silent', 'signature_failures', 'reconciler_recovered', 'held_too_long', 'dispute_deadline'];

/**
 * Watches what the webhooks should be doing and alerts through `onAlert`, the logger, the
 * console's banner (`createConsole({ watchdog })`) and `metrics()` when: no genuine delivery arrived for
 * `silentAfterMinutes` within `activeHours`; signature failures rise above a rate; the reconciler
 * recovered a payment (the webhook missed it); a held event waits too long; a dispute nears its deadline.
 */
export function createWatchdog(options: WatchdogOptions): Watchdog {
  refuseUnknownOptions(options, createWatchdogOptionNames, 'createWatchdog');
  checkObject('options', options, 'an object ({ journal, book?, reconciler?, onAlert? })');
  const { journal, book, reconciler, onAlert } = options;
  if (typeof journal !== 'object' || journal === null || typeof journal.list !== 'function')
    throw mustBe('journal', 'a delivery journal (e.g. memoryJournal())', journal);
  if (book !== undefined && (typeof book?.held !== 'function' || typeof book.disputes !== 'function'))
    throw mustBe('book', 'a payment book (with held() and disputes())', book);
  if (reconciler !== undefined && typeof reconciler?.metrics !== 'function')
    throw mustBe('reconciler', 'a reconciler (with metrics())', reconciler);
  if (onAlert !== undefined && typeof onAlert !== 'function') throw mustBe('onAlert', 'a function', onAlert);
  const silentMs = checkInteger('silentAfterMinutes', options.silentAfterMinutes, 1, 7 * 24 * 60, 30) * minute;
  const maxFailures = checkInteger('maxSignatureFailuresPerMinute', options.maxSignatureFailuresPerMinute, 0, 1_000_000, 30);
  const heldMs = checkInteger('heldLongerThanMinutes', options.heldLongerThanMinutes, 1, 365 * 24 * 60, 60) * minute;
  const disputeMs = checkInteger('disputeAlertAfterDays', options.disputeAlertAfterDays, 0, 365, 5) * 24 * 60 * minute;
  const intervalMs = checkInteger('intervalMs', options.intervalMs, 1_000, 24 * 60 * minute, minute);
  const hours = options.activeHours ?? { from: 0, to: 24 };
  checkObject('activeHours', hours, 'an object ({ from, to }) of UTC hours');
  const from = checkInteger('activeHours.from', hours.from, 0, 23);
  const to = checkInteger('activeHours.to', hours.to, 1, 24);
  if (options.now !== undefined && typeof options.now !== 'function') throw mustBe('now', 'a function returning epoch ms', options.now);
  const now = options.now ?? Date.now;
  const log = guardLogger(options.logger);
  const alertUrl = checkAlertUrl(options.alertUrl);
  let alertsPosted = 0;
  let alertPostFailures = 0;

  const startedAt = now();
  let active = new Map<WatchdogAlertKind, WatchdogAlert>();
  let recoveredBefore = 0;
  const counts = Object.fromEntries(kinds.map((k) => [k, 0])) as Record<WatchdogAlertKind, number>;
  let checks = 0;

  const inActiveHours = (ms: number) => {
    const hour = new Date(ms).getUTCHours();
    return from < to ? hour >= from && hour < to : hour >= from || hour < to;
  };

  async function findings(at: number): Promise<Map<WatchdogAlertKind, string>> {
    const found = new Map<WatchdogAlertKind, string>();
    const guarded = async (what: string, run: () => Promise<void>) => {
      try {
        await run();
      } catch (error) {
        log.error({ error: redactSecrets(describeError(error)) }, `pixhook watchdog: ${what} failed`);
      }
    };
    await guarded('reading the journal', async () => {
      const entries = await journal.list({ limit: 1000 });
      const genuine = entries.find((e) => e.verified && e.replayOf === undefined);
      const last = Math.max(startedAt, genuine === undefined ? -Infinity : Date.parse(genuine.at));
      if (inActiveHours(at) && at - last >= silentMs)
        found.set('silent', `No genuine delivery for ${Math.floor((at - last) / minute)} minutes: is the webhook still registered?`);
      const forged = entries.filter((e) => !e.verified && at - Date.parse(e.at) < minute).length;
      if (forged > maxFailures)
        found.set('signature_failures', `${forged} deliveries failed the signature check in the last minute (more than ${maxFailures}).`);
    });
    if (reconciler !== undefined)
      await guarded('reading the reconciler', async () => {
        const { recovered } = await reconciler.metrics();
        if (recovered > recoveredBefore)
          found.set(
            'reconciler_recovered',
            `The reconciler recovered ${recovered - recoveredBefore} payment(s) the webhook never delivered.`,
          );
        recoveredBefore = recovered;
      });
    if (book !== undefined)
      await guarded('reading the payment book', async () => {
        const [held, disputes] = await Promise.all([book.held(), book.disputes({ open: true })]);
        const waiting = held.filter((h) => at - Date.parse(h.heldAt) > heldMs);
        if (waiting.length > 0)
          found.set('held_too_long', `${waiting.length} held event(s) waiting longer than ${heldMs / minute} minutes for a decision.`);
        const due = disputes.filter((d) => d.open && at - Date.parse(d.openedAt) >= disputeMs);
        if (due.length > 0) found.set('dispute_deadline', `${due.length} open dispute(s) near their answer deadline.`);
      });
    return found;
  }

  async function check(): Promise<readonly WatchdogAlert[]> {
    const at = now();
    checks++;
    const found = await findings(at);
    const next = new Map<WatchdogAlertKind, WatchdogAlert>();
    const posts: Promise<void>[] = [];
    for (const [kind, message] of found) {
      const previous = active.get(kind);
      // The recovered count is news each time it grows; every other alert is raised once while it lasts.
      if (previous !== undefined && kind !== 'reconciler_recovered') {
        next.set(kind, { ...previous, message });
        continue;
      }
      const alert: WatchdogAlert = { kind, message, at: new Date(at).toISOString() };
      next.set(kind, alert);
      counts[kind]++;
      log.warn({ alert: kind }, `pixhook watchdog: ${message}`);
      try {
        onAlert?.(alert);
      } catch (error) {
        log.error({ error: redactSecrets(describeError(error)) }, 'pixhook watchdog: onAlert threw');
      }
      if (alertUrl !== undefined) posts.push(post(alertUrl, alert));
    }
    await Promise.all(posts);
    active = next;
    return [...active.values()];
  }

  /** Posts one alert; a post that fails every attempt is reported, never dropped in silence. */
  async function post(url: URL, alert: WatchdogAlert): Promise<void> {
    const failed = await postAlert(url, { text: `pixhook watchdog: ${alert.message}`, ...alert });
    if (failed === undefined) {
      alertsPosted++;
      return;
    }
    alertPostFailures++;
    const line = `pixhook watchdog: posting the ${alert.kind} alert to ${url.origin} failed (${failed}); it stays on the console's banner`;
    if (options.logger !== undefined) log.error({ alert: alert.kind, error: failed }, line);
    else process.emitWarning(line, 'PixhookWatchdogWarning');
  }

  const timer = setInterval(() => void check(), intervalMs);
  (timer as { unref?: () => void }).unref?.();

  return {
    check,
    active: () => [...active.values()],
    metrics: () => ({ checks, alerts: { ...counts }, active: active.size, alertsPosted, alertPostFailures }),
    close: () => clearInterval(timer),
  };
}

/** Every option createWatchdog takes. */
const createWatchdogOptionNames = optionNames<WatchdogOptions>()([
  'journal',
  'book',
  'reconciler',
  'alertUrl',
  'onAlert',
  'logger',
  'silentAfterMinutes',
  'activeHours',
  'maxSignatureFailuresPerMinute',
  'heldLongerThanMinutes',
  'disputeAlertAfterDays',
  'intervalMs',
  'now',
]);
