import { guardLogger, type Logger } from '../../shared/logger.js';

/** At most one warning per reason in this window; the next one says how many were left out. */
export const refusalWarningWindowMs = 60_000;

/** Where refusal warnings go when the receiver has no `logger`: stderr, one line each, so a refusal is never silent. */
const consoleWarnings: Logger = {
  info() {},
  warn: (fields, message) => console.warn(`${message ?? 'pixhook'} ${JSON.stringify(fields)}`),
  error() {},
};

interface RefusalWarning {
  /** The reason code (`url_secret_mismatch`, …) or `unknown_key`. */
  reason: string;
  /** The peer's address as the socket gave it. */
  peer: string | undefined;
  /** The real cause, naming the option to look at. Never a secret. */
  hint: string;
}

/**
 * One warning per refused call, rate-limited per reason (see `refusalWarningWindowMs`): its reason, the
 * peer's address and a hint naming the real cause. Untrusted strings (addresses, names, keys) are escaped by
 * the guarded logger. Without a `logger`, warnings go to `console.warn`; a logger whose `warn` does nothing
 * silences them.
 */
export function createRefusalWarnings(logger: Logger | undefined): (warning: RefusalWarning) => void {
  const log = logger === undefined ? guardLogger(consoleWarnings) : guardLogger(logger);
  const last = new Map<string, { at: number; left: number }>();
  return ({ reason, peer, hint }) => {
    const now = Date.now();
    const seen = last.get(reason);
    if (seen !== undefined && now - seen.at < refusalWarningWindowMs) {
      seen.left++;
      return;
    }
    last.set(reason, { at: now, left: 0 });
    const fields = { reason, peer: peer ?? '(unknown)', hint, ...(seen !== undefined && seen.left > 0 && { notLogged: seen.left }) };
    log.warn(
      fields,
      reason === 'unknown_key' ? 'pixhook: a Pix to a key outside `keys` was not dispatched' : 'pixhook: API Pix call refused',
    );
  };
}
