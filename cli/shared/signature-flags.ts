import type { SignatureOptions, SigningScheme } from '../../src/index.js';
import { UsageError } from './cli-args.js';
import type { FlagHelp } from './command-help.js';

/** `--signature-scheme sha256|timestamped` and `--signature-header <name>`, shared by listen, send and verify. */
export const signatureFlags = {
  'signature-scheme': { type: 'string', default: 'sha256' },
  'signature-header': { type: 'string' },
} as const;

export const signatureFlagsHelp: FlagHelp[] = [
  { flag: '--signature-scheme <s>', meaning: 'sha256 (X-Signature: sha256=<hex>) or timestamped (t=<unix>,v1=<hex>) (default sha256)' },
  {
    flag: '--signature-header <name>',
    meaning: 'the signature header; required with timestamped, e.g. Vexy-Signature (default X-Signature)',
  },
];

export function signingFrom(values: {
  'signature-scheme': string;
  'signature-header'?: string | undefined;
}): SigningScheme & SignatureOptions {
  const scheme = values['signature-scheme'];
  const header = values['signature-header'];
  if (header !== undefined && !/^[A-Za-z0-9-]+$/.test(header))
    throw new UsageError(`--signature-header must be a header name, got ${JSON.stringify(header)}`);
  if (scheme === 'sha256') return { scheme, header: header ?? 'x-signature' };
  if (scheme === 'timestamped') {
    if (header === undefined) throw new UsageError('--signature-scheme timestamped needs --signature-header <Brand>-Signature');
    return { scheme, header };
  }
  throw new UsageError(`--signature-scheme must be sha256 or timestamped, got ${JSON.stringify(scheme)}`);
}
