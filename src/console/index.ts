// pixhook/console: the operator's pages and JSON API. Its own entry point, outside the core's import
// graph: a receiver that never mounts the console loads none of it.
export { createConsole } from './create-console.js';
export type { ConsoleRequestInfo, PixhookConsole } from './create-console.js';
export type {
  ConsoleOptions,
  ConsoleQuarantine,
  ConsoleQueue,
  ConsoleReconciler,
  DeadLetterRow,
  QuarantineRow,
  ReconcilerRun,
} from './console-options.js';
export type {
  ConsoleSandbox,
  SandboxCharge,
  SandboxDelivery,
  SandboxFault,
  SandboxPaymentFault,
  SandboxTransfer,
} from './console-sandbox.js';
export { recordReconcilerRuns } from './reconciler-runs.js';
export { contentSecurityPolicy } from './console-security.js';
export { createWatchdog } from './watchdog.js';
export type { Watchdog, WatchdogAlert, WatchdogAlertKind, WatchdogMetrics, WatchdogOptions } from './watchdog.js';
