import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** `file:line` of every line in the shipped code (src/, adapters/, cli/, bin/) that matches `pattern`. */
export function shippedLinesMatching(pattern: RegExp): string[] {
  return ['src', 'adapters', 'cli', 'bin'].flatMap((dir) =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.(ts|js)$/.test(f) && !f.includes('node_modules'))
      .flatMap((f) =>
        readFileSync(join(dir, f), 'utf8')
          .split('\n')
          .flatMap((line, i) => (pattern.test(line) ? [`${join(dir, f)}:${i + 1}`] : [])),
      ),
  );
}
