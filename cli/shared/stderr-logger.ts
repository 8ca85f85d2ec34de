import type { Logger } from '../../src/index.js';
import { selfEscapingLoggers } from '../../src/shared/logger.js';
import { redactSecrets } from '../../src/shared/redact-secrets.js';
import { jsonText } from './json-text.js';

/**
 * The CLI's logger: delivery outcomes other than "handled" (those go to stdout) and every other log
 * line, one line each on stderr. Anything that came with a delivery (event names, ids, hints) is
 * JSON-encoded, so a newline or an escape sequence in it can never forge or colour a line; credentials
 * in it (URL passwords, `token=` values, …) are masked (`redactSecrets`).
 */
export const stderrLogger: Logger = {
  info: (fields, message) => writeLogLine(fields, message),
  warn: (fields, message) => writeLogLine(fields, message),
  error: (fields, message) => writeLogLine(fields, message),
};
selfEscapingLoggers.add(stderrLogger);

function writeLogLine(fields: object, message = ''): void {
  const f = fields as Record<string, unknown>;
  if (message === 'pixhook: delivery') {
    if (f['reason'] === 'handled') return;
    const parts = [f['status'], f['reason'], f['event'], f['resourceId']].filter((p) => p !== undefined).map(quoted);
    const hint = f['hint'] === undefined ? '' : ` hint=${quoted(f['hint'])}`;
    process.stderr.write(redactSecrets(`pixhook: ${Number(f['status']) < 300 ? 'acknowledged' : 'rejected'} ${parts.join(' ')}${hint}\n`));
    return;
  }
  // A handler's error message may quote a connection string or a token: masked before it is printed.
  process.stderr.write(redactSecrets(`${jsonText(message).slice(1, -1)} ${safeJson(fields)}\n`));
}

/** Numbers and reason codes as they are; any other value JSON-encoded. */
function quoted(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string' && /^[a-z_]+$/.test(value)) return value;
  return safeJson(value);
}

function safeJson(value: unknown): string {
  return jsonText(value);
}
