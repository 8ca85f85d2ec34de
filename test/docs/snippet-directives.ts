import { existsSync } from 'node:fs';
import { repoRoot, type CodeBlock } from './doc-files.js';

// The mark-up a ```js block of README.md or docs/ may carry, in an HTML comment right above its fence (other
// comments, such as `<!-- example: … -->`, may sit between). Documented in CONTRIBUTING.md ("Snippets").
//
//   <!-- snippet: env REDIS_URL DATABASE_URL; file handlers.js; serves PORT; runs until SIGTERM -->
//
// - `env NAME…`: the variables the block reads. REDIS_URL / PIXHOOK_REDIS_URL get a redis-server the test starts,
//   DATABASE_URL / PIXHOOK_POSTGRES_URL a PostgreSQL, PORT a free port; `NAME=value` sets a literal value.
//   PIXHOOK_SECRET is always set (whsec_snippet_test) and PORT is always a free port.
// - `file NAME`: the name the block is saved under (default snippet.mjs), e.g. handlers.js.
// - `runs until SIGTERM`: a long-running block; once ready it gets SIGTERM and must exit within 10 s.
//   It is ready when PORT accepts a connection (`serves PORT`), when its output contains `ready "<text>"`, or
//   else once it ran 2 s without exiting.
// - `partial <reason>`: not run. The reason must name an existing file of the repository that runs the code
//   (e.g. test/examples/next-app.test.ts). Rare: the test caps their number.

export interface SnippetDirectives {
  env: Record<string, string | undefined>;
  file: string;
  untilSigterm: boolean;
  servesPort: boolean;
  readyText?: string;
  partial?: string;
}

/** Reads the `<!-- snippet: … -->` comment above a block; throws naming the block on an unknown word. */
export function snippetDirectives(block: CodeBlock, text: string): SnippetDirectives {
  const lines = text.split('\n');
  const found: SnippetDirectives = { env: {}, file: 'snippet.mjs', untilSigterm: false, servesPort: false };
  // block.line is the first code line (1-based): the fence is block.line - 1, the line above it block.line - 2.
  for (let i = block.line - 3; i >= 0 && /^<!--.*-->$/.test(lines[i]!.trim()); i--) {
    const match = /^<!--\s*snippet:\s*(.*?)\s*-->$/.exec(lines[i]!.trim());
    if (!match) continue;
    for (const part of match[1]!
      .split(';')
      .map((p) => p.trim())
      .filter(Boolean)) {
      const [word, ...rest] = part.split(/\s+/);
      const argument = rest.join(' ');
      if (word === 'env')
        for (const name of rest) found.env[name.split('=')[0]!] = name.includes('=') ? name.slice(name.indexOf('=') + 1) : undefined;
      else if (word === 'file') found.file = argument;
      else if (part === 'runs until SIGTERM') found.untilSigterm = true;
      else if (part === 'serves PORT') found.servesPort = true;
      else if (word === 'ready') found.readyText = /^"(.*)"$/.exec(argument)?.[1] ?? argument;
      else if (word === 'partial') found.partial = argument;
      else throw new Error(`${block.file}:${block.line}: unknown snippet directive "${part}" (see CONTRIBUTING.md, Snippets)`);
    }
  }
  return found;
}

/** Why a `partial` reason is not good enough, or undefined when it names a file of the repository that exists. */
export function partialReasonProblem(reason: string): string | undefined {
  const paths = reason.match(/[\w.-]+(?:\/[\w.-]+)+\.\w+/g) ?? [];
  if (paths.length === 0) return 'names no file that runs the code (e.g. test/examples/next-app.test.ts)';
  const missing = paths.filter((path) => !existsSync(`${repoRoot}${path}`));
  return missing.length > 0 ? `names files that do not exist: ${missing.join(', ')}` : undefined;
}
