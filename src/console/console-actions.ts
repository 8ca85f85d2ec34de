import { releaseRefusalText } from '../book/release-refusals.js';
import { describeError } from '../shared/describe-error.js';
import { PixhookError } from '../shared/pixhook-error.js';
import { redactSecrets } from '../shared/redact-secrets.js';
import type { ConsoleState } from './create-console.js';
import { jsonAnswer, redirect } from './console-responses.js';
import { bulkReplay, replayFilterFrom } from './bulk-replay.js';
import { replayBody } from './replay-body.js';
import { journalId } from '../journal/journal-id.js';
import { reasonStatus } from '../shared/reasons.js';
import { rerunnable } from './pages/delivery-page.js';

/** What an action did: the page to show next, and a line for it. */
interface Outcome {
  ok: boolean;
  text: string;
  /** Path under the mount. */
  next: string;
  /** For scripts (Accept: application/json). */
  data?: unknown;
}

const cents = (value: string | null): number | undefined =>
  value !== null && /^\d{1,12}$/.test(value.trim()) ? Number(value.trim()) : undefined;
const text = (value: string | null, max = 200): string | undefined => {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed.slice(0, max);
};

/** The trail of a Release or Dismiss: why, and who, as the person typed them. */
function trail(form: URLSearchParams): { note?: string; by?: string } {
  const note = text(form.get('note'), 500);
  const by = text(form.get('by'), 100);
  return { ...(note !== undefined && { note }), ...(by !== undefined && { by }) };
}

/**
 * Every POST of the console (already checked: same origin and CSRF token, or the Bearer token).
 * Answers 303 to the next page with a notice, or JSON for `Accept: application/json`.
 */
export async function runAction(state: ConsoleState, path: string, form: URLSearchParams, base: string, json = false): Promise<Response> {
  let outcome: Outcome;
  try {
    outcome = await act(state, path, form);
  } catch (error) {
    state.report(error, `the action ${path}`);
    outcome = {
      ok: false,
      text: `Failed: ${redactSecrets(describeError(error)).split('\n')[0]!.slice(0, 300)}`,
      next: form.get('back') === '/' ? '/' : backFor(path),
    };
  }
  if (json)
    return jsonAnswer(
      { ok: outcome.ok, message: outcome.text, ...(outcome.data !== undefined && { data: outcome.data }) },
      outcome.ok ? 200 : 422,
    );
  const notice = state.notices.put({ text: outcome.text, ok: outcome.ok });
  const separator = outcome.next.includes('?') ? '&' : '?';
  return redirect(`${base}${outcome.next}${separator}notice=${notice}`);
}

function backFor(path: string): string {
  if (path.startsWith('/actions/sandbox')) return '/';
  if (path.startsWith('/actions/quarantine')) return '/quarantine';
  if (path.startsWith('/actions/dead-letters')) return '/dead-letters';
  if (path.startsWith('/actions/held')) return '/held';
  if (path.startsWith('/actions/reconciler')) return '/reconciler';
  return '/deliveries';
}

async function act(state: ConsoleState, path: string, form: URLSearchParams): Promise<Outcome> {
  const { journal, book, quarantine, queue, reconciler, receiver, sandbox } = state.options;
  const match = (pattern: RegExp) => {
    const found = pattern.exec(path);
    return found ? decodeURIComponent(found[1] ?? '') : undefined;
  };

  const release = match(/^\/actions\/held\/([^/]+)\/release$/);
  if (release !== undefined && receiver) {
    const held = (await book?.held())?.find((h) => h.heldId === release);
    const result = await receiver.release(release, trail(form));
    const next = held ? `/resources/${encodeURIComponent(held.resourceId)}` : '/held';
    return result.ok
      ? { ok: true, text: 'Released: the handlers ran once.', next }
      : { ok: false, text: `Not released (${result.reason}): ${releaseRefusalText[result.reason]}.`, next };
  }
  const dismiss = match(/^\/actions\/held\/([^/]+)\/dismiss$/);
  if (dismiss !== undefined && book) {
    const held = (await book.held()).find((h) => h.heldId === dismiss);
    const { note, by } = trail(form);
    const result = await book.dismiss(dismiss, note ?? 'dismissed from the console', by === undefined ? {} : { by });
    const next = held ? `/resources/${encodeURIComponent(held.resourceId)}` : '/held';
    return result.ok
      ? { ok: true, text: 'Dismissed: the handlers will not run.', next }
      : { ok: false, text: `Not dismissed: ${result.reason}.`, next };
  }

  const quarantined = match(/^\/actions\/quarantine\/([^/]+)\/replay$/);
  if (quarantined !== undefined && quarantine && state.processing) {
    const kept = await quarantine.show(quarantined);
    if (!kept) return { ok: false, text: 'Not in the quarantine any more.', next: '/quarantine' };
    const entry = await replayBody({ bytes: kept.bytes, processing: state.processing, journal, replayOf: `quarantine:${quarantined}` });
    state.replays.set(quarantined, entry.id);
    const outcome = replayed(entry);
    // Read at last (handled, a duplicate, or an event with no handler): the body is no longer needed.
    if (replayedFor(entry.reason) && quarantine.remove !== undefined && (await quarantine.remove(quarantined)))
      outcome.text += ' Removed from the quarantine.';
    return outcome;
  }
  const delivery = match(/^\/actions\/deliveries\/([^/]+)\/replay$/);
  if (delivery !== undefined && state.processing) {
    const entry = await journal.get(delivery);
    if (!entry?.verified || entry.body === undefined)
      return { ok: false, text: 'Only a verified delivery with its body can be replayed.', next: '/deliveries' };
    return replayed(
      await replayBody({ bytes: new TextEncoder().encode(entry.body), processing: state.processing, journal, replayOf: entry.id, entry }),
    );
  }
  const rerun = match(/^\/actions\/deliveries\/([^/]+)\/rerun$/);
  // Only `pixhook dev` gives `sandbox.rerun`: anywhere else this action does not exist (refused below).
  if (rerun !== undefined && sandbox?.rerun) {
    const entry = await journal.get(rerun);
    if (entry === undefined || !rerunnable(entry))
      return { ok: false, text: 'Only a handled delivery with its body can run again.', next: '/deliveries' };
    const at = new Date().toISOString();
    const result = await sandbox.rerun(entry.body!);
    const id = journalId();
    await journal.add({
      id,
      at,
      channel: 'replay',
      verified: true,
      status: result.ok ? 200 : reasonStatus[result.reason],
      ...(!result.ok && { reason: result.reason }),
      event: entry.event!,
      ...(entry.key !== undefined && { key: entry.key }),
      ...(entry.resourceId !== undefined && { resourceId: entry.resourceId }),
      ...(entry.amountInCents !== undefined && { amountInCents: entry.amountInCents }),
      replayOf: entry.id,
      rerun: true,
      bodyBytes: entry.bodyBytes,
      body: entry.body!,
      attempts: [{ attempt: 1, at, durationMs: Math.round(result.durationMs * 1000) / 1000, outcome: result.ok ? 'ok' : 'failed' }],
    });
    return {
      ok: result.ok,
      text: result.ok ? 'Ran again: the handlers ran once more (outside dedupe).' : `Run again failed: ${result.reason}.`,
      next: `/deliveries/${encodeURIComponent(id)}`,
    };
  }
  if (path === '/actions/replays') {
    // A bulk replay: a dry run unless `mode=run`, so a stray POST only counts.
    const dryRun = form.get('mode') !== 'run';
    if (!dryRun && !state.processing)
      return { ok: false, text: 'A replay needs the receiver (its handlers and dedupe store).', next: '/deliveries' };
    const result = await bulkReplay({ journal, processing: state.processing, filter: replayFilterFrom(form), dryRun });
    const counts = Object.entries(result.outcomes).map(([outcome, n]) => `${n} ${outcome}`);
    const text = dryRun
      ? `Dry run: ${result.matched} ${result.matched === 1 ? 'delivery' : 'deliveries'} would be replayed (${result.duplicates} already handled, ${result.skipped} skipped: unverified, without a body, or replays).`
      : `Replayed ${result.matched}: ${counts.length === 0 ? 'nothing ran' : counts.join(', ')}; ${result.failed} failed.`;
    return { ok: result.failed === 0, text, next: '/deliveries', data: result };
  }
  const deadLetter = match(/^\/actions\/dead-letters\/([^/]+)\/replay$/);
  if (deadLetter !== undefined && queue) {
    const ok = await queue.replayDeadLetter(deadLetter);
    return ok
      ? { ok: true, text: 'Replayed: the job is back in the queue with fresh runs.', next: '/dead-letters' }
      : { ok: false, text: 'Not a dead letter any more.', next: '/dead-letters' };
  }
  if (path === '/actions/reconciler/run' && reconciler?.runOnce) {
    const run = await reconciler.runOnce();
    const text =
      'listed' in run
        ? `Listed ${run.listed}, recovered ${run.recovered}, failed ${run.failed}.`
        : `Checked ${run.checked}, recovered ${run.recovered}, failed ${run.failed}.`;
    return { ok: true, text, next: '/reconciler', data: run };
  }
  if (path.startsWith('/actions/sandbox/') && sandbox) return { ok: true, text: await sandboxAction(state, path, form), next: '/' };
  return { ok: false, text: 'No such action here (or the part it needs is not mounted).', next: backFor(path) };
}

/** A replay that settled the body, as `pixhook worker quarantine replay` counts one. */
const replayedFor = (reason: string | undefined) => reason === undefined || reason === 'duplicate' || reason === 'unknown_event';

function replayed(entry: { id: string; status: number; reason?: string }): Outcome {
  const what = entry.reason === undefined ? 'handled' : entry.reason;
  return {
    ok: entry.status < 300,
    text: `Replayed: ${what} (${entry.status}).`,
    next: `/deliveries/${encodeURIComponent(entry.id)}`,
    data: entry,
  };
}

async function sandboxAction(state: ConsoleState, path: string, form: URLSearchParams): Promise<string> {
  const sandbox = state.options.sandbox!;
  if (path === '/actions/sandbox/charges') return sandbox.createCharge({ amountInCents: cents(form.get('amountInCents')) ?? 1000 });
  if (path === '/actions/sandbox/transfers' && sandbox.sendTransfer)
    return sandbox.sendTransfer({
      amountInCents: cents(form.get('amountInCents')) ?? 500,
      pixKey: text(form.get('pixKey')) ?? 'alguem@example.com',
    });
  if (path === '/actions/sandbox/faults') {
    const action = form.get('action');
    if (action !== 'fail' && action !== 'timeout' && action !== 'drop')
      throw new PixhookError('request_invalid', 'the fault must be fail, timeout or drop', { status: 400 });
    const times = cents(form.get('times'));
    return sandbox.injectFault({ action, ...(times !== undefined && times > 0 && { times }) });
  }
  if (path === '/actions/sandbox/faults/clear') return sandbox.clearFaults();
  if (path === '/actions/sandbox/reconcile' && sandbox.reconcile) return sandbox.reconcile();
  const fault = /^\/actions\/sandbox\/charges\/([^/]+)\/fault\/([^/]+)$/.exec(path);
  if (fault && sandbox.playPaymentFault) {
    const name = decodeURIComponent(fault[2]!);
    if (!(sandbox.paymentFaults ?? []).some((f) => f.name === name))
      throw new PixhookError('request_invalid', 'no such payment fault', { status: 404 });
    return sandbox.playPaymentFault(decodeURIComponent(fault[1]!), name);
  }
  const charge = /^\/actions\/sandbox\/charges\/([^/]+)\/(pay|expire|refund|dispute)$/.exec(path);
  if (charge) {
    const id = decodeURIComponent(charge[1]!);
    const verb = charge[2];
    if (verb === 'pay') {
      const amountInCents = cents(form.get('amountInCents'));
      const payerName = text(form.get('payerName'));
      const payerDocument = text(form.get('payerDocument'));
      return sandbox.pay(id, {
        ...(amountInCents !== undefined && { amountInCents }),
        ...(payerName !== undefined && { payerName }),
        ...(payerDocument !== undefined && { payerDocument }),
      });
    }
    if (verb === 'expire') return sandbox.expire(id);
    if (verb === 'refund') return sandbox.refund(id);
    return sandbox.dispute(id);
  }
  throw new PixhookError('request_invalid', 'no such sandbox action', { status: 404 });
}
