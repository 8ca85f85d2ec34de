import { checkFunction } from '../shared/option-checks.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import { createListingReconciler, type ListingReconciler } from './create-listing-reconciler.js';
import type { ListingClient, ListingReconcilerOptions } from './listing-reconciler-options.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

/**
 * `createReconciler({ apiPix: client, processing })`: the listing reconciler of a PSP on the standard API Pix
 * (`createListingReconciler`'s options, with the client named `apiPix`). The gateway reconciler's options
 * (`client`, `watchStore`, `minAgeMs`, …) do not apply and are refused.
 */
export type ApiPixReconcilerOptions = Omit<ListingReconcilerOptions, 'client'> & {
  /** `createApiPixClient(...)`: `GET /pix` is walked in windows from the cursor, within its read budget. */
  apiPix: ListingClient;
  client?: never;
};

// Each side's own options: given to the other reconciler they would be ignored in silence, so they are refused.
const listingOnly = ['cursorStore', 'name', 'from', 'overlapMs', 'windowMs', 'settleMs', 'pageSize', 'maxWindowsPerRun'];
const gatewayOnly = [
  'watchStore',
  'listPending',
  'minAgeMs',
  'maxAgeMs',
  'batch',
  'concurrency',
  'retry',
  'queryLimitPerMinute',
  'querySharePerMinute',
  'leaseMs',
  'eventFor',
  'variant',
];
const given = (options: object, name: string) => (options as Record<string, unknown>)[name] !== undefined;

/** True when the options name `apiPix` (the listing reconciler); each side's options are refused on the other. */
export function isApiPixReconciler(options: object): options is ApiPixReconcilerOptions {
  if (typeof options !== 'object' || options === null) return false;
  if (!given(options, 'apiPix')) {
    const stray = listingOnly.find((name) => given(options, name));
    if (stray !== undefined)
      throw new PixhookConfigError(
        `pixhook: \`${stray}\` is an option of the API Pix listing reconciler (\`createReconciler({ apiPix: client, … })\`), not of the gateway's (\`client\`).`,
      );
    return false;
  }
  if (given(options, 'client'))
    throw new PixhookConfigError(
      'pixhook: `apiPix` and `client` were both given: `apiPix` is an API Pix client (listing reconciler), `client` a gateway client; give one.',
    );
  const stray = gatewayOnly.find((name) => given(options, name));
  if (stray !== undefined)
    throw new PixhookConfigError(
      `pixhook: \`${stray}\` is an option of the gateway reconciler (\`client\`), not of the API Pix listing reconciler (\`apiPix\`).`,
    );
  return true;
}

/** The listing reconciler for `createReconciler({ apiPix, … })`. */
export function apiPixReconciler(options: ApiPixReconcilerOptions): ListingReconciler {
  refuseUnknownOptions(options, apiPixReconcilerOptionNames, 'createReconciler');
  const { apiPix, ...rest } = options;
  checkFunction(
    'apiPix.listPix',
    (apiPix as Partial<ListingClient> | undefined)?.listPix,
    'a function (`apiPix` is createApiPixClient(...))',
  );
  return createListingReconciler({ ...rest, client: apiPix });
}

/** Every option createReconciler takes. */
const apiPixReconcilerOptionNames = optionNames<ApiPixReconcilerOptions>()([
  'processing',
  'name',
  'keys',
  'client',
  'from',
  'logger',
  'onError',
  'now',
  'pageSize',
  'apiPix',
  'onRecovered',
  'everyMs',
  'cursorStore',
  'overlapMs',
  'windowMs',
  'settleMs',
  'maxWindowsPerRun',
]);
