import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Internal core folders that products must not reach into.
const coreInternals = ['../events/*', '../signature/*', '../dedupe/*', '../metrics/*', '../processing/*', '../intake/*'];
// The adapter kit (src/adapter-kit): only adapters/ and cli/ import it; tests may too.
const adapterKit = ['**/adapter-kit', '**/adapter-kit/*', '**/adapter-kit/**'];
const kitMessage = 'the adapter kit is internal: only adapters/ and cli/ import it';

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
    ['../events/*', '../signature/*', '../dedupe/*', '../metrics/*', '../processing/*', '../intake/*'],
    'shared primitives import no other layer',
  ),
  ...layer(
    ['src/events/**', 'src/signature/**'],
    ['../dedupe/*', '../metrics/*', '../processing/*', '../intake/*'],
    'events and signatures sit below dedupe and processing',
  ),
  ...layer(['src/dedupe/**', 'src/metrics/**'], ['../processing/*', '../intake/*'], 'dedupe and metrics sit below processing'),
  ...layer(['src/processing/**'], ['../intake/*'], 'processing never depends on HTTP intake'),
  ...layer(
    ['src/journal/**'],
    ['../dedupe/*', '../metrics/*', '../processing/*', '../intake/*'],
    'the journal sits below processing and intake',
  ),
  ...layer(['src/intake/**'], [], 'the core never imports adapters or the CLI'),
  ...layer(
    ['src/redis/**', 'src/postgres/**', 'src/client/**', 'src/reconcile/**', 'src/testing/**', 'src/otel/**'],
    coreInternals,
    'products import the core only through src/index.ts (and src/shared/*)',
  ),
  ...layer(
    ['src/emulator/**'],
    [...coreInternals, '../client/*'],
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
  ...layer(['cli/*-command.ts'], ['./*-command.js'], 'commands share code through cli/shared, not through each other'),
);

/** A lint rule that fails any import of `patterns` from `files`. */
function layer(files, patterns, message) {
  // Nothing under src/ ever reaches into the adapters or the CLI, and only the kit itself into the kit.
  const outward = files[0].startsWith('src/') ? ['../../adapters/*', '../../adapters/**', '../../cli/*', '../../cli/**'] : [];
  const kit = files[0].startsWith('src/') && files[0] !== 'src/adapter-kit/**' ? [{ group: adapterKit, message: kitMessage }] : [];
  return [{ files, rules: { 'no-restricted-imports': ['error', { patterns: [{ group: [...patterns, ...outward], message }, ...kit] }] } }];
}
