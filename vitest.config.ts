import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Fixtures bind fixed loopback addresses per file; files run in separate forks.
    pool: 'forks',
    // Finds (or starts) the PostgreSQL server the PostgreSQL store's tests make their databases on.
    globalSetup: ['test/support/postgres-server.ts'],
    reporters: ['default'],
  },
});
