import type { Reconciler } from '../reconcile/index.js';
import type { ConsoleReconciler, ReconcilerRun } from './console-options.js';

/**
 * A reconciler whose passes the console can show (due, recovered, failed). Run it through this
 * object's `runOnce` (on a timer of your own, or the page's "Run now"): `start()` runs the inner
 * reconciler's passes, which this wrapper cannot see.
 */
export function recordReconcilerRuns(
  reconciler: Pick<Reconciler, 'metrics' | 'runOnce'>,
  keep = 50,
): ConsoleReconciler & { runOnce(): ReturnType<Reconciler['runOnce']>; runs(): readonly ReconcilerRun[] } {
  const runs: ReconcilerRun[] = [];
  return {
    metrics: () => reconciler.metrics(),
    async runOnce() {
      const result = await reconciler.runOnce();
      runs.unshift({ ...result, at: new Date().toISOString(), due: result.checked + result.deferred });
      runs.length = Math.min(runs.length, keep);
      return result;
    },
    runs: () => runs,
  };
}
