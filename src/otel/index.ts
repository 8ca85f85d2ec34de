// pixhook/otel: spans and metrics on OpenTelemetry (needs the optional peer @opentelemetry/api).
export { openTelemetry } from './open-telemetry.js';
export type { OpenTelemetryOptions } from './open-telemetry.js';
