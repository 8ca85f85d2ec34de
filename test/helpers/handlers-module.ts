import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes, in `dir`, a handler module for `pixhook replay|worker --handlers` that appends one line per
 * `transaction_paid` it runs to RUNS_FILE: `line` is a JavaScript expression of the event `e`.
 */
export function runsHandlersModule(dir: string, line = 'e.transaction.id'): { handlers: string; runsFile: string } {
  const runsFile = join(dir, 'runs.txt');
  writeFileSync(runsFile, '');
  const handlers = join(dir, 'handlers.mjs');
  writeFileSync(
    handlers,
    `import { appendFileSync } from 'node:fs';\nexport default (p) => p.on('transaction_paid', (e) => appendFileSync(process.env.RUNS_FILE, ${line} + '\\n'));\n`,
  );
  return { handlers, runsFile };
}
