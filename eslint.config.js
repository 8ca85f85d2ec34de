import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Internal core folders that products must not reach into.
const coreInternals = ['../events/*', '../signature/*', '../dedupe/*', '../metrics/*', '../processing/*', '../intake/*'];
// Redis and Postgres back the book and the journal: they see only what backend.ts declares.
const backendOnly = ['../book/*', '!../book/backend.js', '../journal/*', '!../journal/backend.js'];
// The adapter kit (src/adapter-kit): only adapters/ and cli/ import it; tests may too.
const adapterKit = ['**/adapter-kit', '**/adapter-kit/*', '**/adapter-kit/**'];
const kitMessage = 'the adapter kit is internal: only adapters/ and cli/ import it';
// The console (src/console) is its own entry point: nothing in the core, the products or the adapters imports it.
const consoleModules = ['../console', '../console/*', '../console/**', './console/*', '../../src/console/*', '../../src/console/**'];
const consoleMessage = 'the console is outside the core’s import graph: only pixhook/console and the CLI import it';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'examples/next-app/.next/', 'examples/*/node_modules/', '**/next-env.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        fetch: 'readonly',
        Request: 'readonly',
        Response: 'readonly',
        Headers: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        crypto: 'readonly',
        performance: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
        globalThis: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off' },
  },
  // The layers, enforced: what each folder may import (README "Architecture").
  ...layer(
    ['src/shared/**'],
    ['../events/*', '../signature/*', '../dedupe/*', '../metrics/*', '../book/*', '../journal/*', '../processing/*', '../intake/*'],
    'shared primitives import no other layer',
  ),
  ...layer(
    ['src/events/**', 'src/signature/**'],
    ['../dedupe/*', '../metrics/*', '../book/*', '../journal/*', '../processing/*', '../intake/*'],
    'events and signatures sit below dedupe, the book, the journal and processing',
  ),
  // A source (src/sources: one PSP's authentication, reader, fetch, key) sees only what an event is and how
  // a signature is checked: the pipeline serves it, never the other way round.
  ...layer(
    ['src/sources/**'],
    ['dedupe', 'book', 'journal', 'processing', 'intake', 'metrics', 'psp', 'api-pix', 'testing', 'emulator'].flatMap((name) => [
      `../${name}/*`,
      `../../${name}/*`,
      `../../${name}/**`,
    ]),
    'sources import only src/shared, src/events and src/signature (no dedupe, book, journal, processing, intake)',
  ),
  ...layer(['src/psp/**'], [], 'the PSP receiver composes intake, processing and sources; nothing under src/ reaches adapters'),
  ...layer(
    ['src/dedupe/**', 'src/metrics/**'],
    ['../book/*', '../journal/*', '../processing/*', '../intake/*'],
    'dedupe and metrics sit below the book, the journal and processing',
  ),
  ...layer(
    ['src/book/**'],
    ['../metrics/*', '../journal/*', '../processing/*', '../intake/*'],
    'the book sits below processing and intake, beside the journal',
  ),
  ...layer(['src/processing/**'], ['../intake/*'], 'processing never depends on HTTP intake'),
  ...layer(
    ['src/journal/**'],
    ['../dedupe/*', '../metrics/*', '../book/*', '../processing/*', '../intake/*'],
    'the journal sits below processing and intake, beside the book',
  ),
  // The one source pipeline serves every source: it never reaches into a product that composes it (API Pix, the PSPs).
  ...layer(
    ['src/intake/**'],
    ['../api-pix/*', '../api-pix/**', '../psp/*', '../psp/**'],
    'intake serves every source: it imports src/sources, never the receivers that compose it (src/api-pix, src/psp)',
  ),
  ...layer(
    ['src/redis/**', 'src/postgres/**'],
    [...coreInternals, ...backendOnly],
    'backends import the core through src/index.ts (and src/shared/*), the book and the journal through their backend.ts',
  ),
  ...layer(
    ['src/client/**', 'src/reconcile/**', 'src/testing/**', 'src/otel/**'],
    [...coreInternals, '../book/*', '../journal/*'],
    'products import the core only through src/index.ts (and src/shared/*)',
  ),
  ...layer(
    ['src/console/**'],
    coreInternals,
    'the console imports the core through src/index.ts (and src/shared/*, the journal, the book types and the adapter kit)',
  ),
  ...layer(
    ['src/console/client/**'],
    ['../*', '../../*', '../../**'],
    'the browser client is bundled on its own: it imports only its siblings and uPlot',
  ),
  ...layer(
    ['src/emulator/**'],
    [...coreInternals, '../book/*', '../journal/*', '../client/*'],
    'the emulator imports the core only through src/index.ts, and never the client: it validates with its own schemas',
  ),
  ...layer(['src/adapter-kit/**'], [], 'the adapter kit reads the core for adapters and the CLI, and never imports them'),
  ...layer(
    ['adapters/**'],
    ['../../src/*/**', '../../cli/**', '../../src/*.js', '!../../src/index.js', '!../../src/adapter-kit/index.js'],
    "adapters import only the core's public entry point and the adapter kit",
  ),
  // Whatever a merchant's code looks like (the root, examples, benches) never reaches the kit.
  {
    files: ['src/index.ts', 'examples/**', 'bench/**', 'scripts/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: adapterKit, message: kitMessage }] }] },
  },
  {
    files: ['src/index.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: adapterKit, message: kitMessage },
            { group: consoleModules, message: consoleMessage },
          ],
        },
      ],
    },
  },
  ...layer(['cli/*-command.ts'], ['./*-command.js'], 'commands share code through cli/shared, not through each other'),
);

/** A lint rule that fails any import of `patterns` from `files`. */
function layer(files, patterns, message) {
  // Nothing under src/ ever reaches into the adapters or the CLI, and only the kit itself into the kit.
  const outward = files[0].startsWith('src/') ? ['../../adapters/*', '../../adapters/**', '../../cli/*', '../../cli/**'] : [];
  // The console mounts like an adapter: it may read a receiver's internals through the kit.
  const inConsole = files[0].startsWith('src/console/');
  const kit =
    files[0].startsWith('src/') && files[0] !== 'src/adapter-kit/**' && !inConsole ? [{ group: adapterKit, message: kitMessage }] : [];
  // Adapters already import nothing under src/ but the core's entry point and the kit.
  const noConsole = inConsole || !files[0].startsWith('src/') ? [] : [{ group: consoleModules, message: consoleMessage }];
  return [
    {
      files,
      rules: { 'no-restricted-imports': ['error', { patterns: [{ group: [...patterns, ...outward], message }, ...kit, ...noConsole] }] },
    },
  ];
}
