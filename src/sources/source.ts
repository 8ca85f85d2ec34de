import type { JsonObject, PixEvent, Provider, UnknownEvent } from '../events/event-types.js';
import type { MaybePromise } from '../shared/maybe-promise.js';
import type { PeerConnection } from '../shared/peer-connection.js';
import type { HeaderSource } from '../shared/read-header.js';

export type { Provider } from '../events/event-types.js';

/**
 * What a source sees of a request before its body: the headers, the target (path and query) and the
 * method. A source that reads the query (Mercado Pago's `data.id`, a URL secret) says so in `needs.url`.
 */
export interface RequestHead {
  readonly method?: string | undefined;
  readonly headers: HeaderSource;
  readonly url?: string | undefined;
  /** What the connection proves (API Pix's mTLS verdict, the proxy's address), when the source `needs` it. */
  readonly peer?: PeerConnection | undefined;
}

/** Why a request is refused before its body counts: a reason code of the reasons table (`src/shared/reasons.ts`). */
type AuthReason =
  | 'signature_missing'
  | 'signature_mismatch'
  | 'signature_malformed'
  | 'signature_expired'
  | 'url_secret_mismatch'
  | 'client_certificate_required'
  | 'client_certificate_rejected'
  | 'proxy_secret_mismatch'
  | 'address_not_allowed';

/** A source's judgement: never an answer (the pipeline writes it), a reason code and a private hint for logs. */
export type Verdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: AuthReason; readonly hint?: string | undefined; readonly message?: string };

/** Hashes the body as its bytes arrive (the gateway's HMAC, PagBank's `token-` seed, Woovi's RSA over the raw bytes). */
export interface BodyCheck {
  update(chunk: Uint8Array): void;
  end(): MaybePromise<Verdict>;
}

/** An id the body names whose state must be fetched from the PSP's API before it counts. */
export interface Hint {
  readonly id: string;
  /** What the PSP called it (`payment`, `charge`…), for logs. */
  readonly resource: string;
  /** The delivery's own fields the fetched event keeps (Asaas's event id, Pagar.me's hook id). */
  readonly deliveryId?: string;
  /** The body the hint came from, kept with the fetched record. */
  readonly body: JsonObject;
}

/** One item of a body that could not be read: kept with the body, never dispatched. */
export interface ReadFailure {
  readonly path: string;
  readonly message: string;
}

/** What a body holds: events read now, ids to fetch, and the items that could not be read. */
export interface SourceRead {
  readonly events: PixEvent[];
  readonly hints: Hint[];
  readonly failures: ReadFailure[];
  /** Set when the body is not this source's shape at all (kept whole, answered 400 `payload_invalid` with the message). */
  readonly invalid?: { readonly detail: string; readonly message: string };
  /**
   * A `single` source's body of a name it does not know (the gateway's): accepted as the delivery's one event,
   * handed to `onUnknown`, answered 200 `unknown_event`. Without it an unknown name reads as no event.
   */
  readonly unknown?: UnknownEvent;
}

/** A hint's fetch: the record as events, a 404 (kept, never dispatched), or a PSP that could not answer (503, the retry fetches again). */
export type Fetched =
  | { readonly status: 'events'; readonly events: PixEvent[] }
  | { readonly status: 'not_found'; readonly hint: string }
  | { readonly status: 'unavailable'; readonly hint: string };

/** What an adapter must hand over for this source to decide. */
interface SourceNeeds {
  /** The request target with its query (Mercado Pago's `data.id`, a URL secret) and, where given, the peer. */
  readonly url: boolean;
  /** Only a TLS socket Node terminated can authenticate (API Pix `mtls`): runtimes without one refuse the receiver. */
  readonly tls?: boolean;
  /** Authentication reads the peer's address (API Pix `proxy`, `urlSecret.allowFrom`). */
  readonly address?: boolean;
}

/**
 * One Pix sender: what differs between senders. The pipeline (method, bytes, JSON, fetch bound, dedupe,
 * book, order, journal, answer) serves every source unchanged; a source never writes an answer.
 */
export interface Source {
  readonly provider: Provider;
  readonly needs: SourceNeeds;
  /**
   * A call of items (API Pix): the items decide the answer, so an empty call, or one whose items are all
   * unreadable (kept with the call), is answered 200, never `unknown_event`; items that cannot be kept answer
   * `store_unavailable`. Absent: a body without one readable event is refused (`unknown_event`, `payload_invalid`).
   */
  readonly batch?: boolean;
  /**
   * A delivery is one event, whatever its name (the gateway's): journaled as that event's entry (its channel,
   * resource, amount, delivery id; no `profile`), with `signatureHeader` kept masked (`sha256=3f2a…`).
   * Absent: journaled as a call of items, with the source's `profile`.
   */
  readonly single?: { readonly signatureHeader: string };
  /** Header names (lower case) and query parameters whose values are masked wherever a request is kept. */
  readonly secrets: { readonly headers: readonly string[]; readonly params: readonly string[] };
  /** Judges headers and URL before any byte of the body is read. */
  authenticate(head: RequestHead): MaybePromise<Verdict>;
  /** Present when the body itself is signed: fed the bytes as they arrive, judged at the end. */
  bodyCheck?(head: RequestHead): BodyCheck;
  /**
   * How an adapter that reads a stream feeds the body check as the bytes arrive: a function, the check from the
   * headers alone (before the first byte), or undefined for this request (the gateway's: a missing or malformed
   * header, which `bodyCheck` judges with the whole body); `false`, never (a check that needs the whole body: the
   * gateway's timestamped scheme, Web Crypto). Absent: `bodyCheck` itself.
   */
  readonly streamCheck?: false | ((headers: HeaderSource) => BodyCheck | undefined);
  /** The verified JSON as events, hints and failures. Pure. */
  read(json: unknown, head: RequestHead): SourceRead;
  /** Present where the body is not the state: the fetched record decides, before the claim. */
  fetch?(hint: Hint, signal: AbortSignal): Promise<Fetched>;
  /** The fact's dedupe key (pure); starts with the provider. */
  key(event: PixEvent): string;
}
