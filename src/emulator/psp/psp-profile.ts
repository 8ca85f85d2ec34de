import type { IncomingHttpHeaders } from 'node:http';

/** The PSPs the emulator plays (the names `createPspReceiver({ psp })` takes). */
export type PspProfileName = 'mercado-pago' | 'asaas' | 'pagbank' | 'woovi' | 'pagarme';

/** A charge (a payment, an order) the emulator holds, in the PSP-neutral terms its profiles render. */
export interface PspCharge {
  /** The PSP's own id (`pay_…`, `ch_…`, a number for Mercado Pago). */
  id: string;
  /** What the charge asks for, in cents. */
  amountInCents: number;
  /** `refunded` and `disputed` follow `paid` (the refund and dispute controls, where the profile plays them). */
  status: 'pending' | 'paid' | 'refunded' | 'disputed';
  /** What was paid, in cents (another amount than asked when the pay control says so). */
  paidInCents?: number;
  /** With `disputed`: the dispute's stage, 0 when opened (the profile's `disputeStages` says how many it plays). */
  disputeStage?: number;
  payerDocument: string;
  endToEndId?: string;
  createdAt: string;
  paidAt?: string;
}

/** One webhook as the PSP would send it: the URL's query it adds, its headers and its exact body. */
export interface PspWebhook {
  query: string;
  headers: Record<string, string>;
  body: string;
}

/** The credentials of a run: generated, printed by the CLI, given to `createPspReceiver`. */
export type PspCredentials = Readonly<Record<string, string>>;

/**
 * What differs between the PSPs the emulator plays: how a charge looks when fetched, how its webhook is
 * shaped and signed, who may read the confirmation API, and how the PSP retries. The server, state,
 * controls, deliveries and faults are shared (`start-psp-emulator.ts`).
 */
export interface PspProfile {
  readonly name: PspProfileName;
  readonly credentials: PspCredentials;
  /** A new charge's id. */
  chargeId(sequence: number): string;
  /** The confirmation API's path for a charge (`/v1/payments/{id}`…); undefined: the PSP needs none. */
  readonly recordPath?: RegExp;
  /** True when the request carries the run's API credential. */
  authorized?(headers: IncomingHttpHeaders): boolean;
  /** The charge as the confirmation API returns it. */
  record(charge: PspCharge): Record<string, unknown>;
  /** The webhook for the charge's state now (`sequence` numbers each event the PSP sends). */
  webhook(charge: PspCharge, sequence: number, now: number): Promise<PspWebhook> | PspWebhook;
  /**
   * The waits between attempts, in milliseconds at real time (the emulator scales them by `timeFactor`);
   * its length plus one is the number of attempts.
   */
  readonly retryScheduleMs: readonly number[];
  /** Failed attempts in a row after which the PSP pauses the queue until it is re-enabled (Asaas: 15). */
  readonly pauseAfterFailures?: number;
  /** The facts after a payment this PSP has and this profile plays (its refund, its dispute or chargeback). */
  readonly plays: readonly ('refund' | 'dispute')[];
  /**
   * How many stages a dispute goes through, each with its own webhook (Asaas's chargeback: requested, in
   * dispute, won): the dispute control on a disputed charge plays the next one. Default 1.
   */
  readonly disputeStages?: number;
  /** Extra routes the PSP serves (Woovi's public keys), answered without a credential. */
  extraRoutes?(): readonly PspExtraRoute[];
  /** Extra controls (Woovi's key rotation). */
  extraControls?(): readonly PspExtraRoute[];
}

interface PspExtraRoute {
  method: 'GET' | 'POST';
  path: string;
  handle(): unknown;
}
