import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Internal core folders that products must not reach into.
const coreInternals = ['../events/*', '../signature/*', '../dedupe/*', '../metrics/*', '../processing/*', '../intake/*'];

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'examples/next-app/.next/', 'examples/*/node_modules/', '**/next-env.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly',
        setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly',
        setImmediate: 'readonly', fetch: 'readonly', Request: 'readonly', Response: 'readonly',
        Headers: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly',
        TextDecoder: 'readonly', crypto: 'readonly', performance: 'readonly', structuredClone: 'readonly',
        queueMicrotask: 'readonly', globalThis: 'readonly',
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
  ...layer(['src/shared/**'], ['../events/*', '../signature/*', '../dedupe/*', '../metrics/*', '../processing/*', '../intake/*'], 'shared primitives import no other layer'),
  ...layer(['src/events/**', 'src/signature/**'], ['../dedupe/*', '../metrics/*', '../processing/*', '../intake/*'], 'events and signatures sit below dedupe and processing'),
  ...layer(['src/dedupe/**', 'src/metrics/**'], ['../processing/*', '../intake/*'], 'dedupe and metrics sit below processing'),
  ...layer(['src/processing/**'], ['../intake/*'], 'processing never depends on HTTP intake'),
  ...layer(['src/intake/**'], [], 'the core never imports adapters or the CLI'),
  ...layer(['src/redis/**', 'src/postgres/**', 'src/client/**', 'src/reconcile/**', 'src/testing/**', 'src/otel/**'], coreInternals, 'products import the core only through src/index.ts (and src/shared/*)'),
  ...layer(['src/emulator/**'], [...coreInternals, '../client/*'], 'the emulator imports the core only through src/index.ts, and never the client: it validates with its own schemas'),
  ...layer(['adapters/**'], ['../../src/*/**', '../../cli/**', '../../src/*.js', '!../../src/index.js'], 'adapters import only the core\'s public entry point'),
  ...layer(['cli/*-command.ts'], ['./*-command.js'], 'commands share code through cli/shared, not through each other'),
);

/** A lint rule that fails any import of `patterns` from `files`. */
function layer(files, patterns, message) {
  // Nothing under src/ ever reaches into the adapters or the CLI.
  const outward = files[0].startsWith('src/') ? ['../../adapters/*', '../../adapters/**', '../../cli/*', '../../cli/**'] : [];
  return [{ files, rules: { 'no-restricted-imports': ['error', { patterns: [{ group: [...patterns, ...outward], message }] }] } }];
}
