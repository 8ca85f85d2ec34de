import { escapeControls, hasControls } from './escape-controls.js';
import type { Telemetry } from './telemetry.js';

/** The pino-compatible subset pixhook logs through: an object first, then an optional message. */
export interface Logger {
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/** Loggers that escape every string they print themselves (the CLI's): their fields are passed as they are. */
export const selfEscapingLoggers = new WeakSet<Logger>();

/**
 * The merchant's logger with every call guarded: a logger that throws (a closed stream, a bad
 * serializer) never breaks a delivery, a retry or an error report. Every string in the fields
 * (ids, event names, keys, header values, error messages: untrusted) reaches it with its control
 * characters escaped, since a JSON-only logger such as pino writes C1 controls and U+2028 raw.
 */
export function guardLogger(logger: Logger | undefined): Logger {
  if (logger === undefined || logger === silentLogger) return silentLogger;
  const escape = !selfEscapingLoggers.has(logger);
  const call = (level: keyof Logger) => (fields: object, message?: string) => {
    try {
      if (escape) {
        fields = escapeLogFields(fields);
        if (message !== undefined) message = escapeControls(message);
      }
      logger[level](fields, message);
    } catch {
      // Nowhere left to report it: logging is best effort by design.
    }
  };
  return { info: call('info'), warn: call('warn'), error: call('error') };
}

/** Adds the active span's `trace_id` and `span_id` to every line, when telemetry is on and a span is active. */
export function withTraceFields(logger: Logger, telemetry: Telemetry | undefined): Logger {
  if (telemetry === undefined || logger === silentLogger) return logger;
  const call = (level: keyof Logger) => (fields: object, message?: string) => {
    let trace: Record<string, string> | undefined;
    try {
      trace = telemetry.logContext();
    } catch {
      trace = undefined;
    }
    logger[level](trace ? { ...fields, ...trace } : fields, message);
  };
  return { info: call('info'), warn: call('warn'), error: call('error') };
}

/**
 * `fields` with the control characters of every string in it escaped (see `escapeControls`), down
 * through plain objects and arrays. Fields with none (the usual case) are returned as they are,
 * after one regex test per string.
 */
export function escapeLogFields(fields: object): object {
  return escapeValue(fields, 0) as object;
}

function escapeValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return hasControls(value) ? escapeControls(value) : value;
  if (typeof value !== 'object' || value === null || depth > 4) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const escaped = escapeValue(value[i], depth + 1);
      if (escaped !== value[i]) (copy ??= [...value])[i] = escaped;
    }
    return copy ?? value;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  let copy: Record<string, unknown> | undefined;
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    const escaped = escapeValue(field, depth + 1);
    if (escaped !== field) (copy ??= { ...(value as Record<string, unknown>) })[key] = escaped;
  }
  return copy ?? value;
}
