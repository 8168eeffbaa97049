import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Vitest global setup: the end-to-end tests run the built CLI (`dist/`), so a build older than any
 * source file is rebuilt before the first test, rather than tested as if it were the code.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUILT = join(ROOT, 'dist', 'cli', 'main.js');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function builtAt(): number {
  try {
    return statSync(BUILT).mtimeMs;
  } catch {
    return 0;
  }
}

export default function setup(): void {
  const sources = Math.max(newestSource(join(ROOT, 'src')), statSync(join(ROOT, 'tsconfig.build.json')).mtimeMs);
  if (builtAt() >= sources) return;
  console.warn('dist/ is older than src/: building it first (npm run build)');
  try {
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json')], {
      stdio: 'inherit',
      cwd: ROOT,
    });
  } catch {
    // tsc still writes what it could: the unit tests need no build, and an e2e test of a broken
    // build fails on its own. CI builds with `npm run build` first, which fails on a type error.
    console.warn('the build has type errors (above); the tests go on with what tsc wrote');
  }
}
