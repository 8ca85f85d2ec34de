import type { ReasonCode } from '../shared/reasons.js';

/** A charge the sandbox created, with what a payer scans or pastes. */
export interface SandboxCharge {
  id: string;
  status: string;
  amountInCents: number;
  /** The copy-and-paste (EMV) code. */
  emv: string;
  /** The QR code as a `data:image/png;base64,…` URI. */
  qrCode: string;
  /** The standard API Pix's payload URL (without scheme) the code points at, when the charge has one. */
  location?: string;
  createdAt: string;
}

export interface SandboxTransfer {
  id: string;
  status: string;
  amountInCents: number;
  pixKey: string;
}

/** One webhook delivery as the gateway sent it: its attempts and whether it gave up. */
export interface SandboxDelivery {
  id: string;
  event: string;
  resourceId: string;
  state: string;
  /**
   * Each attempt as the gateway made it. `at` and `durationMs` are the gateway's own clock; `fault` is the
   * action of a delivery fault that answered in the receiver's place (it never reached the receiver).
   */
  attempts: { attempt: number; status?: number; error?: string; fault?: string; at?: string; durationMs?: number }[];
  /** The exact body sent: the deliveries page joins the gateway's attempts to the journal's entries by it. */
  body?: string;
}

/** How a "Run again" ended: `reason` is the run's refusal (`handler_failed`, `payload_invalid`…) when not ok. */
export type RerunResult = { ok: true; durationMs: number } | { ok: false; durationMs: number; reason: ReasonCode };

export interface SandboxFault {
  id: string;
  action: 'fail' | 'timeout' | 'drop' | 'delay';
  hits: number;
  times?: number;
}

/** A payment fault the sandbox offers: its name (in the action's URL) and its button's label. */
export interface SandboxPaymentFault {
  name: string;
  label: string;
}

/** What the sandbox page drives: a gateway (the emulator under `pixhook dev`). Each action resolves to a line to show. */
export interface ConsoleSandbox {
  charges(): Promise<SandboxCharge[]>;
  /** Absent when the gateway sends no transfers (the standard API Pix profile): the page offers none. */
  transfers?(): Promise<SandboxTransfer[]>;
  deliveries(): Promise<SandboxDelivery[]>;
  faults(): Promise<SandboxFault[]>;
  createCharge(input: { amountInCents: number }): Promise<string>;
  /** Pays a charge, optionally with another amount or payer (a mismatch the book holds). */
  pay(id: string, input: { amountInCents?: number; payerName?: string; payerDocument?: string }): Promise<string>;
  expire(id: string): Promise<string>;
  refund(id: string): Promise<string>;
  dispute(id: string): Promise<string>;
  sendTransfer?(input: { amountInCents: number; pixKey: string }): Promise<string>;
  /**
   * The sender's own faults around a payment, one button each on every charge (`pixhook dev --profile <psp>`:
   * the webhook sent twice, a late `pending`, the confirmation read failing once). Absent: none offered.
   */
  paymentFaults?: readonly SandboxPaymentFault[];
  /** Plays the payment fault `name` (one of `paymentFaults`) on the charge. */
  playPaymentFault?(id: string, name: string): Promise<string>;
  injectFault(input: { action: 'fail' | 'timeout' | 'drop'; times?: number }): Promise<string>;
  clearFaults(): Promise<string>;
  /** One reconciler pass now. */
  reconcile?(): Promise<string>;
  /**
   * `pixhook dev` only ("Run again"): runs a handled delivery's handlers again on its verified body, in a
   * fresh run outside the receiver's dedupe. Never given for a real receiver.
   */
  rerun?(body: string): Promise<RerunResult>;
}
