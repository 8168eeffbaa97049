import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Fixtures bind fixed loopback addresses per file; files run in separate forks.
    pool: 'forks',
    // Builds dist/ when it is older than src/ (the e2e tests run the built CLI), then finds (or
    // starts) the PostgreSQL server the PostgreSQL store's tests make their databases on.
    globalSetup: ['test/support/build.ts', 'test/support/postgres-server.ts'],
    reporters: ['default'],
    // No CLI a test runs asks the npm registry for a newer version (that is the internet);
    // test/e2e/cli-update-notice.test.ts turns the check on against a registry of its own.
    env: { MAILVERIFY_NO_UPDATE_CHECK: '1' },
  },
});
