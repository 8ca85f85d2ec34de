// The three test tiers (vitest projects). The rule for a new file, documented in CONTRIBUTING.md:
// a file is `unit` unless it is named `*.integration.test.ts` / `*.soak.test.ts`, or sits in a folder or
// file listed below. Unit tests run in-process only (an in-process HTTP server or emulator is fine);
// anything that starts a server process, a browser, another runtime, a CLI process or a build is
// integration; fault runs, benches and long properties are soak.

/** Servers (Redis, PostgreSQL), browsers, other runtimes, CLI processes, builds (next, tsc, npm pack). */
export const integration = [
  'test/**/*.integration.test.ts',
  'test/cli/**/*.test.ts',
  'test/console/console-command-book.test.ts',
  'test/console/console-express.test.ts',
  'test/console/dev-browser.test.ts',
  'test/docs/**/*.test.ts',
  'test/examples/**/*.test.ts',
  'test/package/**/*.test.ts',
  'test/postgres/**/*.test.ts',
  'test/redis/**/*.test.ts',
  'test/runtimes/**/*.test.ts',
  'test/adapters/next.test.ts',
  'test/api-pix/adapters.contract.test.ts',
  'test/emulator/e2e-example.test.ts',
  'test/emulator/lazy-qr.test.ts',
  'test/reconcile/reconcile-e2e.test.ts',
  'test/reconcile/reconcile-e2e-cluster.test.ts',
  'test/testing/demo.test.ts',
  // Browsers, CLI processes, nginx, Redis and PostgreSQL started by the file itself.
  'test/api-pix-client/cli-api-pix.test.ts',
  'test/api-pix-client/listing-reconciler.test.ts',
  'test/api-pix-client/nginx-end-to-end.test.ts',
  'test/api-pix/cli-listen.test.ts',
  'test/api-pix/cli-send.test.ts',
  'test/api-pix/nginx-proxy.test.ts',
  'test/console/console-axe.test.ts',
  'test/console/console-bulk-replay.test.ts',
  'test/console/console-event-rows.test.ts',
  'test/console/console-glance.test.ts',
  'test/console/console-held-trail.test.ts',
  'test/console/console-watchdog-banner.test.ts',
  'test/console/dev-api-pix-browser.test.ts',
  'test/console/dev-attempts.test.ts',
  'test/console/dev-run-again.test.ts',
  'test/emulator/emulator-controls-browser.test.ts',
  'test/order/postgres-order.test.ts',
  'test/order/redis-order-lease.test.ts',
  'test/order/redis-order.test.ts',
  'test/processing/dev-shutdown.test.ts',
];

/** Fault runs, benches and long property runs: minutes of work, each asserting one invariant at scale. */
export const soak = [
  'test/**/*.soak.test.ts',
  'test/**/*.property.test.ts',
  'test/bench/**/*.test.ts',
  'test/postgres/fault-run.test.ts',
  'test/processing/chaos.test.ts',
  'test/redis/fault-run.test.ts',
];

export const allTests = ['test/**/*.test.ts'];
export const typeTests = ['test/**/*.test-d.ts'];
/** Installed packages (test/runtimes, examples) carry test files of their own. */
export const noTests = ['**/node_modules/**', '**/dist/**', '**/.next/**'];
