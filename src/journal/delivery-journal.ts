// The delivery journal: a bounded record of every delivery, for the console and for scripts.
// The receiver writes it off the hot path (a queued write, flushed after the answer); a journal failure
// is reported to `onError` and never changes an answer. Unverified bodies are never stored: only their
// size and reason. Backends: `memoryJournal({ max })` (core), `redisJournal` (pixhook/redis),
// `postgresJournal` (pixhook/postgres), so several instances share one view.
import type { PixEventName } from '../events/event-names.js';
import type { BookChannel } from '../events/book-channel.js';
import type { ReasonCode } from '../shared/reasons.js';
import type { JsonObject, Provider } from '../events/event-types.js';

/** One run of an event's handlers for a delivery (inline, background, a durable worker, a release or replay). */
export interface JournalAttempt {
  /** 1 for the first run. */
  attempt: number;
  /** ISO 8601, when the run started. */
  at: string;
  durationMs: number;
  outcome: 'ok' | 'failed' | 'timed_out' | 'claim_lost';
  /** A short description of the failure (never sent to the sender; escaped when shown). */
  error?: string;
  /** What ran it, when not the delivery itself: a release of a held event, or a replay (of a dead letter). */
  run?: 'release' | 'replay';
}

/** One delivery as the journal keeps it. */
export interface JournalEntry {
  /** The journal's own id for the delivery (unique, sortable by time). */
  id: string;
  /** ISO 8601, when the delivery arrived. */
  at: string;
  remoteAddress?: string;
  channel?: BookChannel;
  /** True once the signature was checked and matched. */
  verified: boolean;
  /** The answer's HTTP status. */
  status: number;
  /** The answer's reason; absent on a plain 200. */
  reason?: ReasonCode;
  event?: PixEventName | string;
  /** The dedupe key. */
  key?: string;
  resourceId?: string;
  amountInCents?: number;
  /** The event's own delivery id, when the gateway gave one. */
  deliveryId?: string;
  /** Set for a replay from the console or the CLI (quarantine, dead letters). */
  replayOf?: string;
  /** A "Run again" in `pixhook dev`: the handlers of `replayOf` ran again outside dedupe. */
  rerun?: true;
  /** Size of the raw body in bytes (always kept, verified or not). */
  bodyBytes: number;
  /** The verified body as text. Never present on an unverified delivery. */
  body?: string;
  /** The signature header, masked (e.g. `sha256=3f2a…`); never the whole value. */
  signature?: string;
  /** Warnings from the lenient reader. */
  warnings?: string[];
  attempts: JournalAttempt[];
  /** A standard API Pix call (`pixhook/api-pix`): each event of the batch, in order. One entry per call. */
  items?: JournalItem[];
  /**
   * The source that read the delivery, so a replay reads the body with the same reader (through the sources'
   * registry): `api-pix` for a standard API Pix call, a PSP's name for its deliveries; absent: the gateway's.
   */
  profile?: Provider;
  /**
   * Where the body is only a hint (Mercado Pago, Pagar.me, Asaas with `apiKey`): each record the source's API
   * answered, as the handlers saw it, so a replay re-runs what was applied without the PSP's credentials.
   * Only the records the API returned: never a header, the query or a credential.
   */
  confirmed?: JournalConfirmed[];
}

/** One record a source fetched for a delivery (its payment or charge), with the delivery's own id the event kept. */
export interface JournalConfirmed {
  record: JsonObject;
  /** The delivery's id the fetched event kept (Asaas's event id: its dedupe key; Pagar.me's hook id). */
  deliveryId?: string;
}

/** One event of a batched call as the journal keeps it. */
export interface JournalItem {
  event: string;
  key?: string;
  /** The answer the item alone would have had (`duplicate`, `held`, `handler_failed`…); absent when handled. */
  reason?: ReasonCode;
  endToEndId?: string;
  /** The receiving key (`chave`). */
  pixKey?: string;
  txid?: string;
  amountInCents?: number;
}

/** Filters of `journal.list` (and of `GET /api/deliveries`). */
export interface JournalQuery {
  event?: string;
  /** The answer's status code. */
  status?: number;
  reason?: string;
  resource?: string;
  /** Entries strictly older than this id (paging), newest first. */
  before?: string;
  /** Default 100, at most 1000. */
  limit?: number;
}

/** Every method returns a promise, on every backend. */
export interface DeliveryJournal {
  /** Adds a delivery; the journal drops its oldest entries past its bound. */
  add(entry: JournalEntry): Promise<void>;
  /** Appends a handler run to a delivery (no-op when the delivery was already dropped). */
  addAttempt(id: string, attempt: JournalAttempt): Promise<void>;
  get(id: string): Promise<JournalEntry | undefined>;
  /** Newest first. */
  list(query?: JournalQuery): Promise<JournalEntry[]>;
  /**
   * Calls `listener` with each entry added or updated (an attempt appended) from now on; returns the
   * unsubscribe. On a shared backend it hears every instance's writes (pub/sub or polling), so a
   * separate `pixhook console --redis` process sees them live. The console's server-sent events use it.
   */
  subscribe(listener: (entry: JournalEntry) => void): () => void;
}
