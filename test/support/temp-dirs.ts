import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * Temp dirs that go when their test file ends, whatever happened in it: a test that failed before
 * its own clean-up, a service killed to simulate a crash and never stopped. CI fails when a run
 * leaves a `mailverify-*` entry in the temp dir (.ci/run).
 */
const made = new Set<string>();

// Registered on the importing test file: vitest loads this module afresh for every file.
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
});

/** A new private `mailverify-<name>-*` dir under the OS temp dir, removed at the end of the test file (or before, by whoever is done with it). */
export function testTempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `mailverify-${name}-`));
  made.add(dir);
  return dir;
}
