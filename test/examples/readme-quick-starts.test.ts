import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './example-process.js';

// Each framework snippet in the README and the guides is marked with the example it was copied from;
// the examples themselves are started and sent signed events by node-examples.test.ts and next-app.test.ts.
const markedBlocks = (text: string) =>
  [...text.matchAll(/<!-- example: (\S+) -->\n```js\n([\s\S]*?)```/g)].map(([, file, code]) => ({ file: file!, code: code! }));
const readme = markedBlocks(readFileSync(`${repoRoot}README.md`, 'utf8'));
const guides = readdirSync(`${repoRoot}docs/guides`).flatMap((name) =>
  markedBlocks(readFileSync(`${repoRoot}docs/guides/${name}`, 'utf8')).map((block) => ({ ...block, guide: name })),
);

describe('README framework snippets', () => {
  it('has one per framework, the Next app with both routers', () => {
    expect(readme.map((b) => b.file)).toEqual([
      'examples/express/server.js',
      'examples/fastify/server.js',
      'examples/next-app/app/api/webhooks/pix/route.js',
      'examples/next-app/pages/api/webhooks/pix-pages.js',
      'examples/hono/server.js',
      'examples/node-http/server.js',
    ]);
  });

  it.each(readme.map((b) => [b.file, b] as const))('%s is the tested example file, in at most 10 lines', (_file, { file, code }) => {
    expect(code).toBe(readFileSync(`${repoRoot}${file}`, 'utf8'));
    expect(code.trimEnd().split('\n').length).toBeLessThanOrEqual(10);
  });
});

describe('guide snippets', () => {
  it('each guide shows its framework example', () => {
    expect(new Set(guides.map((b) => b.file))).toEqual(new Set(readme.map((b) => b.file)));
  });

  it.each(guides.map((b) => [`${b.guide}: ${b.file}`, b] as const))('%s is the tested example file', (_name, { file, code }) => {
    expect(code).toBe(readFileSync(`${repoRoot}${file}`, 'utf8'));
  });
});
