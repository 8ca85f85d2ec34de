import { bodyOf } from '../events/event-body.js';
import type { TransactionEvent } from '../events/event-types.js';
import type { DisputeWithAge, PaymentBook } from './payment-book.js';
import type { Violation } from '../events/violation.js';

// `disputeAlertMs`: a MED dispute must be answered within a deadline; the book lists open
// disputes with their age, and this scan tells `onViolation` once per dispute when its age reaches the alert.

export interface DisputeAlertsOptions {
  book: Pick<PaymentBook, 'disputes' | 'get'>;
  alertMs: number;
  /** Hears each alert: the `dispute_deadline` violation and the dispute as a `transaction_infraction` event. */
  tell: (violation: Violation, event: TransactionEvent<'transaction_infraction'>) => void;
  /** A failed scan (the book could not be read): the next one tries again. */
  failed: (error: unknown) => void;
}

export interface DisputeAlerts {
  /** Scans the open disputes now; resolves how many alerts it sent. Never rejects. */
  check(): Promise<number>;
  /** Starts the periodic scan (an unref'd timer: it never keeps the process alive). */
  start(): void;
  stop(): void;
}

// Alerted disputes remembered in this process; beyond it the oldest are forgotten (and could alert again).
const maxRemembered = 100_000;

export function createDisputeAlerts(options: DisputeAlertsOptions): DisputeAlerts {
  const { book, alertMs } = options;
  const alerted = new Set<string>();
  const everyMs = Math.min(60_000, alertMs);
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<number> | undefined;

  async function scan(): Promise<number> {
    let open: DisputeWithAge[];
    try {
      open = await book.disputes({ open: true });
    } catch (error) {
      options.failed(error);
      return 0;
    }
    const stillOpen = new Set<string>();
    let sent = 0;
    for (const dispute of open) {
      const key = disputeKey(dispute);
      stillOpen.add(key);
      if (dispute.ageMs < alertMs || alerted.has(key)) continue;
      alerted.add(key);
      if (alerted.size > maxRemembered) alerted.delete(alerted.values().next().value as string);
      options.tell(deadlineViolation(dispute, alertMs), await disputeEvent(dispute));
      sent++;
    }
    // A closed (or evicted) dispute is forgotten: the set stays as small as the open list.
    for (const key of alerted) if (!stillOpen.has(key)) alerted.delete(key);
    return sent;
  }

  async function disputeEvent(dispute: DisputeWithAge): Promise<TransactionEvent<'transaction_infraction'>> {
    let resource;
    try {
      resource = await book.get(dispute.resourceId);
    } catch {
      resource = undefined;
    }
    const infraction = {
      ...(dispute.id !== undefined && { id: dispute.id }),
      ...(dispute.status !== undefined && { status: dispute.status }),
      ...(dispute.reason !== undefined && { reason: dispute.reason }),
      ...(dispute.amountInCents !== undefined && { amountInCents: dispute.amountInCents }),
      openedAt: dispute.openedAt,
    };
    return {
      kind: 'transaction',
      name: 'transaction_infraction',
      variant: 'b',
      // Rebuilt from the book, not a delivery: `payload` is the dispute as the book holds it.
      source: 'webhook',
      // The book keeps no sender: an alert names the gateway's family, whose dispute event it mirrors.
      provider: 'gateway',
      warnings: [],
      ...bodyOf({ dispute: { ...dispute } }),
      transaction: {
        id: dispute.resourceId,
        status: resource?.kind === 'transaction' ? resource.status : 'paid',
        amountInCents: resource?.amountInCents ?? dispute.amountInCents ?? 0,
        infraction,
      },
    };
  }

  function check(): Promise<number> {
    // Two scans at once share one: a dispute is never told twice by one process.
    running ??= scan()
      .catch((error: unknown) => {
        options.failed(error);
        return 0;
      })
      .finally(() => (running = undefined));
    return running;
  }

  return {
    check,
    start() {
      if (timer !== undefined) return;
      timer = setInterval(() => void check(), everyMs);
      timer.unref?.();
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}

function disputeKey(dispute: DisputeWithAge): string {
  return `${dispute.resourceId}\n${dispute.id ?? ''}\n${dispute.openedAt}`;
}

function deadlineViolation(dispute: DisputeWithAge, alertMs: number): Violation {
  const hours = Math.floor(dispute.ageMs / 3_600_000);
  return {
    reason: 'dispute_deadline',
    action: 'flag',
    message: `A MED dispute on this charge has been open since ${dispute.openedAt} (${hours} h, past the alert at ${alertMs} ms): answer it before its deadline.`,
  };
}
