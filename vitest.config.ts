import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Fixtures bind fixed loopback addresses per file; files run in separate forks.
    pool: 'forks',
    reporters: ['default'],
  },
});
