import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/service.js';

/** The program as a whole, before any command runs: help, version, and what starting costs. */

let dir: string;
let traceHooks: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailverify-program-'));
  // Module hooks (they run on a thread of their own, hence writeSync) naming every module the CLI loads.
  await writeFile(
    join(dir, 'hooks.mjs'),
    `import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  writeSync(2, 'loaded ' + resolved.url + '\\n');
  return resolved;
}
`,
  );
  traceHooks = join(dir, 'register.mjs');
  await writeFile(traceHooks, `import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n`);
});

afterAll(() => rm(dir, { recursive: true, force: true }));

/** The modules of this package and of node_modules that a run loaded, as paths below the project. */
async function modulesLoadedBy(args: string[]): Promise<string[]> {
  const { stderr, code } = await runCli(args, { env: { NODE_OPTIONS: `--import ${traceHooks}` } });
  expect(code, stderr).toBe(0);
  const root = new URL('../../', import.meta.url).href;
  return [...new Set(stderr.split('\n').filter((line) => line.startsWith(`loaded ${root}`)).map((line) => line.slice(`loaded ${root}`.length)))];
}

/** Modules of the heavy layers that depend on nothing: an error type, a flag parser. */
const LIGHT_MODULES = new Set(['dist/csv/errors.js', 'dist/engine/net/proxy-url.js']);

describe('the program', () => {
  it.each([[['--help']], [['verify', '--help']], [['bulk', 'submit', '--help']]])(
    '%j loads commander and the error types, nothing heavy (no engine, server, CSV, HTTP client, command)',
    async (args) => {
      const loaded = await modulesLoadedBy(args);
      expect(loaded).toContain('dist/cli/main.js');
      const heavy = loaded.filter(
        (path) =>
          (/^dist\/(engine|server|csv)\//.test(path) && !LIGHT_MODULES.has(path)) ||
          path.startsWith('dist/cli/commands/') ||
          (path.startsWith('node_modules/') && !path.startsWith('node_modules/commander/')),
      );
      expect(heavy).toEqual([]);
    },
  );

  it('prints help on stdout for --help (exit 0), and on stderr with exit 2 when no command is given', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: mailverify/);
    const bare = await runCli([]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe('');
    expect(bare.stderr).toMatch(/^Usage: mailverify/);
  });

  it("--version prints this package's version, not that of whichever npm script runs it", async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const printed = await runCli(['--version'], { env: { npm_package_version: '99.0.0' } });
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe(`${version}\n`);
  });
});
