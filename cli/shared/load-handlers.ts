import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Processing } from '../../src/index.js';
import { UsageError } from '../cli-args.js';

/** Loads `--handlers <module>` and calls its default export (or `register`) with the processing. */
export async function registerHandlers(path: string, processing: Processing): Promise<void> {
  let module: { default?: unknown; register?: unknown };
  try {
    module = (await import(pathToFileURL(resolve(path)).href)) as typeof module;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'ENOENT') throw new UsageError(`--handlers ${JSON.stringify(path)}: no such module`);
    throw error;
  }
  const register = typeof module.default === 'function' ? module.default : module.register;
  if (typeof register !== 'function') {
    throw new UsageError(`--handlers ${JSON.stringify(path)} must export a function (default or \`register\`) that takes the processing (on, onAny, onError …)`);
  }
  await (register as (processing: Processing) => unknown)(processing);
}
