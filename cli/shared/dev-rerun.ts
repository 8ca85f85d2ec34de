import { createProcessing, normalizeEvent, type Processing } from '../../src/index.js';
import type { ConsoleSandbox } from '../../src/console/index.js';
import { stderrLogger } from './stderr-logger.js';

type RerunResult = Awaited<ReturnType<NonNullable<ConsoleSandbox['rerun']>>>;

/**
 * `pixhook dev`'s "Run again": the handlers module registered on a processing of its own, with a fresh
 * memory dedupe store, for this one run. The receiver's dedupe (and any real receiver's) is never touched,
 * so the run is outside dedupe by construction, not by weakening it.
 */
export async function rerunHandlers(register: (processing: Processing) => unknown, body: string): Promise<RerunResult> {
  const started = performance.now();
  const took = () => performance.now() - started;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { ok: false, durationMs: took(), reason: 'json_invalid' };
  }
  const normalized = normalizeEvent(value, { source: 'replay' });
  if (!normalized.ok || normalized.event.kind === 'unknown') return { ok: false, durationMs: took(), reason: 'payload_invalid' };
  const processing = createProcessing({ mode: 'inline', logger: stderrLogger });
  await register(processing);
  const result = await processing.accept(normalized.event).finally(() => processing.close());
  return result.reason === undefined ? { ok: true, durationMs: took() } : { ok: false, durationMs: took(), reason: result.reason };
}
