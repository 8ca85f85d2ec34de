import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Processing } from '../../src/index.js';
import { describeError } from '../../src/shared/describe-error.js';
import { redactSecrets } from '../../src/shared/redact-secrets.js';
import { UsageError } from './cli-args.js';
import { jsonText } from './json-text.js';

/**
 * Loads `--handlers <module>`: the function it returns calls its default export (or `register`) with the
 * processing. A module that is missing, cannot be loaded (a syntax error, an import of its own that fails) or
 * has no such function is a usage error (exit 2, one line), for every command.
 */
export async function loadHandlers(path: string): Promise<(processing: Processing) => Promise<void>> {
  const url = pathToFileURL(resolve(path)).href;
  let module: { default?: unknown; register?: unknown };
  try {
    module = (await import(url)) as typeof module;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const message = error instanceof Error ? error.message : '';
    // Only the module itself missing is "no such module"; a package it imports that is missing is a load failure.
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'ENOENT') && message.includes(resolve(path))) {
      throw new UsageError(`--handlers ${jsonText(path)}: no such module`);
    }
    const line = redactSecrets(describeError(error).split('\n')[0] ?? '');
    // `import`/`export` in a .js file of a CommonJS package (`npm init -y` writes "type": "commonjs"): say how to fix it.
    const hint = /Cannot use import statement outside a module|Unexpected token 'export'/.test(line)
      ? ' (an ES module in a CommonJS package: run `npm pkg set type=module`, or name the file .mjs)'
      : '';
    throw new UsageError(`--handlers ${jsonText(path)} cannot be loaded: ${jsonText(line).slice(1, -1)}${hint}`);
  }
  const register = typeof module.default === 'function' ? module.default : module.register;
  if (typeof register !== 'function') {
    throw new UsageError(
      `--handlers ${jsonText(path)} must export a function (default or \`register\`) that takes the processing (on, onAny, onError …)`,
    );
  }
  return async (processing) => {
    await (register as (processing: Processing) => unknown)(processing);
  };
}
