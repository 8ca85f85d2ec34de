import type { Logger, PixEvent } from '../index.js';
import { checkFunction, checkInteger, checkTimeoutMs, checkTtlMs, describeGiven } from '../shared/option-checks.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import type { CursorStore } from './cursor-store.js';
import { memoryCursorStore } from './memory-cursor-store.js';
import { resolveKeys } from '../sources/api-pix/receiving-keys.js';
import type { ReconcilerProcessing } from './reconciler-options.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

/** One Pix as the listing gives it (an `ApiPixReceived` of `pixhook/api-pix` fits). */
export interface ListedPix {
  endToEndId: string;
  txid?: string;
  amountInCents: number;
  key?: string;
  paidAt: string;
  payerInfo?: string;
  components?: Record<string, number>;
  refunds: ReadonlyArray<{
    id: string;
    rtrId: string;
    amountInCents: number;
    status: 'processing' | 'returned' | 'not_returned';
    nature?: string;
    description?: string;
    requestedAt?: string;
    settledAt?: string;
    reason?: string;
  }>;
}

/** What the listing reconciler needs of `createApiPixClient` (its `listPix`). */
export interface ListingClient {
  listPix(input: { from: string; to: string; pageSize?: number }, options?: { signal?: AbortSignal }): AsyncIterable<ListedPix>;
}

export interface ListingReconcilerOptions {
  /** `createApiPixClient(...)`: its read budget bounds the reconciler's reads (each page is one read). */
  client: ListingClient;
  processing: ReconcilerProcessing;
  /** Where the cursor lives. Default `memoryCursorStore()` (a restart starts again at `from`). */
  cursorStore?: CursorStore;
  /** The cursor's name in the store (one per PSP account). Default `api-pix`. */
  name?: string;
  /** Where to start without a saved cursor: epoch ms, a Date or an ISO string. Default 24 hours before the first run. */
  from?: number | Date | string;
  /** Each window starts this long before the cursor, so a Pix the PSP lists late is still seen. Default 300 000 (5 min). */
  overlapMs?: number;
  /** The length of one `GET /pix` window. Default 3 600 000 (1 h). */
  windowMs?: number;
  /** Windows end this long before now: the PSP may list a Pix a little after it settles. Default 60 000. */
  settleMs?: number;
  /** Pix per `GET /pix` page (1 to 1000). Default 100. */
  pageSize?: number;
  /** Windows walked per run at most. Default 48. */
  maxWindowsPerRun?: number;
  /** `start()` runs every this often. Default 60 000. */
  everyMs?: number;
  /**
   * The receiver's `keys` (the merchant's receiving keys). Given, a listed Pix to another key (or naming none)
   * is read exactly as the webhook reads it: with a payment book it goes on marked and the book holds it as
   * `unknown_key`; without one it is never handed to the handlers and is reported to `onError`.
   */
  keys?: readonly string[];
  /** Called for each event handed to processing and handled (not for duplicates). */
  onRecovered?: (event: PixEvent) => void;
  /** Called for a listed Pix that could not be made into an event (it is reported, and the cursor goes past it). */
  onError?: (failure: { endToEndId: string; error: Error }) => void | Promise<void>;
  logger?: Logger;
  /** Epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

interface ResolvedListingOptions {
  client: ListingClient;
  processing: ReconcilerProcessing;
  cursorStore: CursorStore;
  name: string;
  from: number | undefined;
  overlapMs: number;
  windowMs: number;
  settleMs: number;
  maxWindowsPerRun: number;
  pageSize: number;
  everyMs: number;
  keys: ReadonlySet<string> | undefined;
  onRecovered: ((event: PixEvent) => void) | undefined;
  onError: ListingReconcilerOptions['onError'];
  logger: Logger | undefined;
  now: () => number;
}

export function resolveListingOptions(options: ListingReconcilerOptions): ResolvedListingOptions {
  refuseUnknownOptions(options, listingOptionNames, 'createListingReconciler');
  checkFunction('client.listPix', options?.client?.listPix, 'a function (`client` is createApiPixClient(...))');
  checkFunction('processing.accept', options.processing?.accept, 'a function (`processing` is what createProcessing() returns)');
  const store = options.cursorStore;
  if (store !== undefined && (typeof store?.get !== 'function' || typeof store?.set !== 'function')) {
    throw new PixhookConfigError(
      `pixhook: \`cursorStore\` must be a cursor store (memoryCursorStore(), redisCursorStore(…), postgresCursorStore(…)), got ${describeGiven(store)}`,
    );
  }
  let from: number | undefined;
  if (options.from !== undefined) {
    const value = options.from;
    from =
      typeof value === 'number'
        ? value
        : value instanceof Date
          ? value.getTime()
          : typeof value === 'string'
            ? Date.parse(value)
            : Number.NaN;
    if (!Number.isFinite(from))
      throw new PixhookConfigError(
        `pixhook: \`from\` must be epoch milliseconds, a Date or an ISO 8601 string, got ${describeGiven(value)}`,
      );
  }
  const name = options.name ?? 'api-pix';
  if (typeof name !== 'string' || !/^[\w.:-]{1,100}$/.test(name))
    throw new PixhookConfigError(`pixhook: \`name\` must be 1–100 letters, digits, _ . : or -, got ${describeGiven(name)}`);
  return {
    client: options.client,
    processing: options.processing,
    cursorStore: store ?? memoryCursorStore(),
    name,
    from,
    overlapMs: checkInteger('overlapMs', options.overlapMs, 0, 86_400_000, 300_000),
    windowMs: checkTtlMs('windowMs', options.windowMs, 3_600_000),
    settleMs: checkInteger('settleMs', options.settleMs, 0, 86_400_000, 60_000),
    maxWindowsPerRun: checkInteger('maxWindowsPerRun', options.maxWindowsPerRun, 1, 10_000, 48),
    pageSize: checkInteger('pageSize', options.pageSize, 1, 1000, 100),
    everyMs: checkTimeoutMs('everyMs', options.everyMs, 60_000),
    keys: resolveKeys(options.keys),
    onRecovered:
      options.onRecovered === undefined ? undefined : checkFunction<(event: PixEvent) => void>('onRecovered', options.onRecovered),
    onError:
      options.onError === undefined
        ? undefined
        : checkFunction<NonNullable<ListingReconcilerOptions['onError']>>('onError', options.onError),
    logger: options.logger,
    now: options.now === undefined ? Date.now : checkFunction<() => number>('now', options.now),
  };
}

/** Every option createListingReconciler takes. */
const listingOptionNames = optionNames<ListingReconcilerOptions>()([
  'client',
  'processing',
  'cursorStore',
  'name',
  'from',
  'overlapMs',
  'windowMs',
  'settleMs',
  'pageSize',
  'maxWindowsPerRun',
  'everyMs',
  'keys',
  'onRecovered',
  'onError',
  'logger',
  'now',
]);
