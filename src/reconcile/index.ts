// pixhook/reconcile: follow charges to a final status through the API, so no paid charge is missed.
export { createReconciler } from './create-reconciler.js';
export type { Reconciler, ReconcilerMetrics, RunResult, WatchOutcome } from './create-reconciler.js';
export type { PendingCharge, ReconcileFailure, ReconcilerClient, ReconcilerOptions, ReconcilerProcessing } from './reconciler-options.js';
export { defaultBackoffMs, maxReadsPerCharge, nextCheckAt } from './check-schedule.js';
export { defaultStatusEvents, recoveredEvent } from './recovered-event.js';
export type { NoEvent, ReadTransaction, ReconcileVariant } from './recovered-event.js';
export { memoryWatchStore } from './memory-watch-store.js';
export type { MemoryWatchStoreOptions } from './memory-watch-store.js';
export type { WatchEntry, WatchStats, WatchStore } from './watch-store.js';
export { reconcilerMetricsToPrometheus } from './reconciler-prometheus.js';
export { createListingReconciler } from './create-listing-reconciler.js';
export type { ListingReconciler, ListingReconcilerMetrics, ListingRunResult } from './create-listing-reconciler.js';
export type { ListedPix, ListingClient, ListingReconcilerOptions } from './listing-reconciler-options.js';
export type { ApiPixReconcilerOptions } from './api-pix-reconciler.js';
export { memoryCursorStore } from './memory-cursor-store.js';
export type { CursorStore } from './cursor-store.js';
