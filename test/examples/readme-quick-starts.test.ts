import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './example-process.js';

// Each quick start in the README is marked with the example it was copied from.
const readme = readFileSync(`${repoRoot}README.md`, 'utf8');
const section = readme.slice(readme.indexOf('<!-- section:adapters:start -->'), readme.indexOf('<!-- section:adapters:end -->'));
const markedBlocks = (text: string) =>
  [...text.matchAll(/<!-- example: (\S+) -->\n```js\n([\s\S]*?)```/g)].map(([, file, code]) => ({ file: file!, code: code! }));
const blocks = markedBlocks(section);
const everyBlock = markedBlocks(readme);

describe('README adapter quick starts', () => {
  it('has one per framework', () => {
    expect(blocks.map((b) => b.file.split('/')[1])).toEqual(['express', 'fastify', 'next-app', 'next-app', 'hono', 'node-http']);
  });

  it('has the Express quick start at the top as well', () => {
    expect(everyBlock.map((b) => b.file.split('/')[1])).toEqual([
      'express',
      'express',
      'fastify',
      'next-app',
      'next-app',
      'hono',
      'node-http',
    ]);
  });

  it.each(everyBlock.map((b, i) => [`${i}: ${b.file}`, b] as const))(
    '%s is copied from the tested example, in at most 10 lines',
    (_file, { file, code }) => {
      expect(readFileSync(`${repoRoot}${file}`, 'utf8')).toContain(code);
      expect(code.trimEnd().split('\n').length).toBeLessThanOrEqual(10);
    },
  );
});
