import type { QuarantineStore } from '../dedupe/quarantine-store.js';
import type { InvalidHandler } from '../intake/receiver-options.js';
import type { Processing } from '../processing/create-processing.js';
import { allProcessingOptionNames, type ProcessingOptions } from '../processing/processing-options.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';
import type { Logger } from '../shared/logger.js';
import { optionalNumber } from '../shared/option-checks.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import { isPspName, pspNames, sourceRegistry, type PspSourceOptions } from '../sources/registry.js';

/** What every PSP receiver takes besides its PSP's own options. */
export interface PspIntakeOptions {
  /** Larger bodies get 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** `Retry-After` on 503 answers, in seconds. Default 5. */
  retryAfterSeconds?: number;
  /**
   * How long the PSP's API may take to confirm a delivery (Mercado Pago, Pagar.me, Asaas with `apiKey`), in ms.
   * Default 8 000; at most 15 000, well under Mercado Pago's 22 s answer limit. Past it: 503 `gateway_unavailable`.
   * Refused (`PixhookConfigError`) where nothing is fetched: PagBank, Woovi, Asaas without `apiKey`.
   */
  fetchTimeoutMs?: number;
  /** Gets every authenticated body that cannot be read (and every fetched 404), with its exact bytes. */
  onInvalid?: InvalidHandler;
  /** Where such bodies are kept for a replay. Default: the store's own; `false` for none. */
  quarantine?: QuarantineStore | false;
  logger?: Logger;
}

/**
 * `createPspReceiver`'s options: one PSP's (`psp` names it), the intake's, then the processing's (or a
 * shared `processing`), as `createReceiver`'s.
 */
export type PspReceiverOptions = PspSourceOptions &
  PspIntakeOptions &
  ((ProcessingOptions & { processing?: undefined }) | ({ processing: Processing } & { [K in keyof ProcessingOptions]?: undefined }));

/** What every PSP receiver takes besides its PSP's own options (`sourceRegistry[psp].options`). */
const pspCommonOptionNames = [
  'psp',
  'processing',
  ...optionNames<PspIntakeOptions>()(['maxBodyBytes', 'retryAfterSeconds', 'fetchTimeoutMs', 'onInvalid', 'quarantine', 'logger']),
  ...allProcessingOptionNames,
];

interface ResolvedPspIntake {
  maxBodyBytes: number;
  retryAfterSeconds: number;
  fetchTimeoutMs: number;
}

/** Checks what does not belong to the named PSP and the intake's numbers; the PSP's own options are its source's to check. */
export function resolvePspIntake(options: PspReceiverOptions): ResolvedPspIntake {
  if (typeof options !== 'object' || options === null)
    throw new PixhookConfigError('pixhook: `options` of createPspReceiver must be an object with `psp`.');
  const psp: unknown = options.psp;
  if (!isPspName(psp)) throw new PixhookConfigError(`pixhook: \`psp\` must be one of ${pspNames.map((name) => `"${name}"`).join(', ')}.`);
  const own = new Set(sourceRegistry[psp].options);
  for (const other of pspNames) {
    for (const name of sourceRegistry[other].options) {
      if (!own.has(name) && (options as unknown as Record<string, unknown>)[name] !== undefined)
        throw new PixhookConfigError(`pixhook: \`${name}\` is not an option of psp "${psp}" (it is ${other}'s).`);
    }
  }
  for (const name of ['secret', 'signature', 'auth', 'keys'] as const) {
    if ((options as unknown as Record<string, unknown>)[name] !== undefined && !own.has(name))
      throw new PixhookConfigError(
        `pixhook: \`${name}\` does not apply to createPspReceiver: psp "${psp}" authenticates as its PSP documents.`,
      );
  }
  refuseUnknownOptions(options, [...own, ...pspCommonOptionNames], 'createPspReceiver');
  if (options.onInvalid !== undefined && typeof options.onInvalid !== 'function')
    throw new PixhookConfigError('pixhook: `onInvalid` must be a function.');
  const resolved = {
    maxBodyBytes: optionalNumber('maxBodyBytes', options.maxBodyBytes, 1024 * 1024, { min: 1, max: 1024 * 1024 * 1024, note: '(1 GiB)' }),
    retryAfterSeconds: optionalNumber('retryAfterSeconds', options.retryAfterSeconds, 5, { min: 1, max: 86_400, note: '(24 h)' }),
    fetchTimeoutMs: optionalNumber('fetchTimeoutMs', options.fetchTimeoutMs, 8_000, {
      min: 1,
      max: 15_000,
      note: '(15 s, under Mercado Pago’s 22 s)',
    }),
  };
  return resolved;
}
