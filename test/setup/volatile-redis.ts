// The test Redis servers keep keys in memory on purpose (no AOF, no snapshots: fast, and a restart
// starts clean), so every store made without a logger warns PIXHOOK_REDIS_NOT_PERSISTENT once per file.
// Those expected lines buried real output; the tests that check the warning pass a logger and still see it.
const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;

process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  const [options, code] = rest;
  const given = typeof options === 'object' && options !== null ? (options as { code?: unknown }).code : code;
  if (given === 'PIXHOOK_REDIS_NOT_PERSISTENT') return;
  emitWarning(warning, ...rest);
}) as typeof process.emitWarning;
