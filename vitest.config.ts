import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'adapters/**/*.ts'],
      exclude: ['**/*.test.ts', '**/*.test-d.ts'],
      thresholds: { lines: 90 },
      reporter: ['text-summary', 'text'],
    },
  },
});
