import type { Telemetry, TelemetrySpan } from '../shared/telemetry.js';
import { runAttempt, type AttemptInput, type AttemptOutcome } from './run-attempt.js';

/**
 * `runAttempt` inside a handler span (`pixhook handle <event>`), linked to the delivery's span — also
 * when the run happens later, in background mode or on a durable worker. Telemetry failures never
 * touch the run.
 */
export function runTracedAttempt(
  input: AttemptInput,
  telemetry: Telemetry | undefined,
  link: Record<string, string> | undefined,
): AttemptOutcome | Promise<AttemptOutcome> {
  if (telemetry === undefined) return runAttempt(input);
  const attributes = {
    'messaging.system': 'pixhook',
    'messaging.operation.type': 'process',
    'pixhook.event.name': input.event.name,
    'pixhook.mode': input.mode,
    'pixhook.source': input.source,
    'pixhook.attempt': input.attempt,
    ...(input.key !== undefined && { 'pixhook.dedupe.key': input.key }),
  };
  let span: TelemetrySpan;
  try {
    span = telemetry.startRun(`pixhook handle ${input.event.name}`, attributes, link);
  } catch {
    return runAttempt(input);
  }
  const finish = (outcome: AttemptOutcome): AttemptOutcome => {
    try {
      const name = outcome.ok ? (outcome.duplicate ? 'duplicate' : 'handled') : outcome.timedOut ? 'timed_out' : outcome.claimLost ? 'claim_lost' : 'failed';
      span.setAttributes({ 'pixhook.outcome': name });
      if (!outcome.ok) span.fail(outcome.error);
      span.end();
      telemetry.recordRun(name, { 'pixhook.event.name': input.event.name, 'pixhook.mode': input.mode });
    } catch {
      // Telemetry is best effort.
    }
    return outcome;
  };
  const result = span.run(() => runAttempt(input));
  return result instanceof Promise ? result.then(finish) : finish(result);
}
