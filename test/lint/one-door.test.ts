import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Issue 36 §2, one door: every path that runs a handler (the webhook, replays, both reconcilers, release, the durable
// worker) passes the same stages — dedupe, book, order, journal — because only one function calls a handler and
// only processing's claimed run reaches it. A new path that calls handlers some other way fails here.
const files = (root: string) =>
  readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.includes('node_modules'))
    .map((file) => join(root, file).replaceAll('\\', '/'));
const sources = [...files('src'), ...files('cli'), ...files('adapters')];
const code = (file: string) =>
  readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
const using = (pattern: RegExp) => sources.filter((file) => pattern.test(code(file))).sort();

describe('one door to the handlers', () => {
  it('only run-attempt.ts reads the registry’s handler lists (the one place a handler is called)', () => {
    expect(using(/\.byName\b|\bhandlers\.(any|unknown)\b/)).toEqual(['src/processing/run-attempt.ts']);
  });

  it('only the claimed run calls runAttempt: a delivery’s Run, a durable job’s (a Run too), and the scope’s runOnce', () => {
    expect(using(/\brunAttempt\(/)).toEqual([
      'src/processing/claimed-run.ts',
      'src/processing/queued-job.ts',
      'src/processing/run-attempt.ts',
    ]);
    expect(code('src/processing/queued-job.ts')).toMatch(/class QueuedJob extends Run\b/);
  });

  it('runOnce runs only what has no dedupe key (unknown events) or passed the book’s release claim', () => {
    expect(using(/\bscope\.runOnce\(/)).toEqual(['src/processing/accept-unknown.ts', 'src/processing/release-held.ts']);
    expect(code('src/processing/release-held.ts')).toMatch(/await book\.claimRelease\(heldId\)[\s\S]*scope\.runOnce\(/);
  });

  it('nothing outside processing imports the run, the attempt or the registry (only its types and registration)', () => {
    const imports = (file: string) => [
      ...code(file).matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'[./]*(?:src\/)?processing\/([\w-]+)\.js'/g),
    ];
    const reached = sources
      .filter((file) => !file.startsWith('src/processing/'))
      .flatMap((file) =>
        imports(file)
          .filter(
            ([, type, names, module]) => type === undefined && (module !== 'handler-registry' || /\bcreateHandlerRegistry\b/.test(names!)),
          )
          .filter(([, , , module]) => ['run-attempt', 'claimed-run', 'queued-job', 'run-queued', 'handler-registry'].includes(module!))
          .map(([, , names, module]) => `${file}: ${module}: ${names!.trim()}`),
      );
    expect(reached).toEqual([]);
  });

  it('the durable worker hands each job to processing.runQueued, which runs it in order, judged by the book stage', () => {
    expect(code('src/redis/durable-worker.ts')).toMatch(/options\.processing\.runQueued\(/);
    const runQueued = code('src/processing/run-queued.ts');
    expect(runQueued).toMatch(/scope\.order\.runInTurn\(/);
    expect(runQueued).not.toMatch(/\brunAttempt\b/);
    expect(code('src/processing/create-processing.ts')).toMatch(
      /runQueued\(scope, job, run, newOwner\(\), book && \((async )?\(queued\) => bookStage!\.recordInBook\(book, queued\)\)\)/,
    );
  });

  it('replays and both reconcilers reach handlers only through processing.accept', () => {
    for (const file of ['src/console/replay-body.ts', 'src/reconcile/create-reconciler.ts', 'src/reconcile/create-listing-reconciler.ts'])
      expect(code(file)).toMatch(/processing\.accept\(/);
  });
});
