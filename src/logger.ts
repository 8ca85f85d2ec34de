/** The pino-compatible subset pixhook logs through: an object first, then an optional message. */
export interface Logger {
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
