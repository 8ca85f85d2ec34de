import { defineConfig } from 'vitest/config';
import { allTests, integration, noTests, soak, typeTests } from './test/tiers.js';

// Three tiers (test/tiers.ts says which file goes where): `npm run test:fast` runs unit alone,
// `npm test` runs all three with coverage.
export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 60_000,
    setupFiles: ['test/setup/volatile-redis.ts'],
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'adapters/**/*.ts'],
      exclude: ['**/*.test.ts', '**/*.test-d.ts'],
      thresholds: { lines: 90 },
      reporter: ['text-summary', 'text'],
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // Threads start faster than forks; unit tests change no process-wide state.
          pool: 'threads',
          include: allTests,
          exclude: [...noTests, ...integration, ...soak],
          typecheck: { enabled: true, include: typeTests, tsconfig: './tsconfig.json' },
        },
      },
      { extends: true, test: { name: 'integration', include: integration, exclude: [...noTests, ...soak] } },
      { extends: true, test: { name: 'soak', include: soak, exclude: noTests } },
    ],
  },
});
