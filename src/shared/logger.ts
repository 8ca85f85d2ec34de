import type { Telemetry } from './telemetry.js';

/** The pino-compatible subset pixhook logs through: an object first, then an optional message. */
export interface Logger {
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/**
 * The merchant's logger with every call guarded: a logger that throws (a closed stream, a bad
 * serializer) never breaks a delivery, a retry or an error report.
 */
export function guardLogger(logger: Logger | undefined): Logger {
  if (logger === undefined || logger === silentLogger) return silentLogger;
  const call = (level: keyof Logger) => (fields: object, message?: string) => {
    try {
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
