import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REASON_CODE_NAMES } from '../../src/engine/core/reason-codes.js';
import { commandProblem, missing } from '../support/machine.js';
import { BIN, runCli } from '../support/service.js';

/** What --only and --fail-on complete to: the verdicts, then the reason codes (catch_all is both). */
const SELECTORS = ['valid', 'invalid', 'risky', 'catch_all', 'unknown', ...REASON_CODE_NAMES.filter((code) => code !== 'catch_all')];

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
  return [
    ...new Set(
      stderr
        .split('\n')
        .filter((line) => line.startsWith(`loaded ${root}`))
        .map((line) => line.slice(`loaded ${root}`.length)),
    ),
  ];
}

/** Modules of the heavy layers that depend on nothing: an error type, a flag parser. */
const LIGHT_MODULES = new Set(['dist/csv/errors.js', 'dist/engine/net/proxy-url.js']);

describe('the program', () => {
  it.each([[['--help']], [['verify', '--help']], [['bulk', 'submit', '--help']], [['mcp', '--help']]])(
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

/** Every command path of the program (completion and help list the same tree). */
const COMMANDS = [
  [],
  ['verify'],
  ['serve'],
  ['worker'],
  ['doctor'],
  ['login'],
  ['logout'],
  ['whoami'],
  ['completion'],
  ['help'],
  ['bulk'],
  ['bulk', 'submit'],
  ['bulk', 'status'],
  ['bulk', 'results'],
  ['bulk', 'delete'],
  ['bulk', 'list'],
  ['bulk', 'local'],
  ['bulk', 'local', 'prune'],
  ['profile'],
  ['profile', 'list'],
  ['profile', 'use'],
  ['profile', 'remove'],
  ['webhooks'],
  ['webhooks', 'add'],
  ['webhooks', 'list'],
  ['webhooks', 'remove'],
  ['webhooks', 'test'],
  ['mcp'],
  ['admin'],
  ['admin', 'user'],
  ['admin', 'user', 'add'],
  ['admin', 'user', 'list'],
  ['admin', 'user', 'delete'],
  ['admin', 'user', 'password'],
  ['admin', 'credits'],
  ['admin', 'credits', 'add'],
  ['admin', 'rate-limit'],
  ['admin', 'rate-limit', 'set'],
  ['admin', 'token'],
  ['admin', 'token', 'create'],
];

describe('help', () => {
  it.each(COMMANDS.map((path) => [path.join(' ') || '(the program)', path]))('%s --help shows the global flags and real examples', async (_name, path) => {
    const help = await runCli([...(path as string[]), '--help']);
    expect(help.code, help.stderr).toBe(0);
    if ((path as string[]).length > 0) expect(help.stdout).toContain('Global Options:\n');
    expect(help.stdout).toContain('--no-input');
    const examples =
      help.stdout
        .split('Examples:\n')[1]
        ?.split('\n')
        .filter((line) => line.startsWith('  $ ')) ?? [];
    expect(examples.length, help.stdout).toBeGreaterThanOrEqual(1);
    for (const line of examples) expect(line).toMatch(/mailverify /);
  });

  it('help <topic> explains exit codes, the environment and CSV handling; help <command> is its --help', async () => {
    const exitCodes = await runCli(['help', 'exit-codes']);
    expect(exitCodes.code).toBe(0);
    expect(exitCodes.stdout).toMatch(/^ {2}5 {4}insufficient tokens/m);
    expect((await runCli(['help', 'environment'])).stdout).toContain('MAILVERIFY_TOKEN');
    expect((await runCli(['help', 'csv'])).stdout).toContain('line 15220 (record 13330)');
    expect((await runCli(['help', 'bulk', 'submit'])).stdout).toMatch(/^Usage: mailverify bulk submit/);
    const unknown = await runCli(['help', 'nothing']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('topics: exit-codes, environment, csv');
  });
});

describe('completion', () => {
  /** What bash's completion offers for a command line, the completion script sourced first. */
  function completeInBash(script: string, line: string): string[] {
    const words = line.split(' ');
    const program = `${script}\nCOMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _mailverify; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const bash = spawnSync('bash', ['--norc', '-c', program], { encoding: 'utf8' });
    expect(bash.status, bash.stderr).toBe(0);
    return bash.stdout.split('\n').filter(Boolean);
  }

  it('completion bash, sourced in bash, completes commands, subcommands, flags and verdicts', async () => {
    const printed = await runCli(['completion', 'bash']);
    expect(printed.code, printed.stderr).toBe(0);
    expect(completeInBash(printed.stdout, 'mailverify bu')).toEqual(['bulk']);
    expect(completeInBash(printed.stdout, 'mailverify --json bulk st')).toEqual(['status']);
    expect(completeInBash(printed.stdout, 'mailverify bulk submit --on')).toEqual(['--only']);
    expect(completeInBash(printed.stdout, 'mailverify bulk results job-1 --only ')).toEqual(SELECTORS);
    expect(completeInBash(printed.stdout, 'mailverify verify --fail-on mailbox_')).toEqual(['mailbox_not_found', 'mailbox_disabled', 'mailbox_full']);
    expect(completeInBash(printed.stdout, 'mailverify help exit')).toEqual(['exit-codes']);
  });

  /**
   * zsh and fish as a user has them, the built CLI on PATH and its script loaded the way the
   * script's own first line says. Installed by .ci/run; only a run without root (which cannot
   * install them) may go without, and says so.
   */
  const skipped = (shell: string) => missing('test/e2e/cli-program.test.ts', shell, commandProblem(shell));
  const pathWithCli = async () => {
    const bin = join(dir, 'bin');
    await mkdir(bin, { recursive: true });
    await symlink(BIN, join(bin, 'mailverify')).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    return `${bin}:${dirname(process.execPath)}:${process.env.PATH ?? ''}`;
  };

  /**
   * What zsh's completion system offers for a command line: an interactive zsh in a pseudo-terminal
   * (zpty) with compinit, the script sourced, the line typed and Tab pressed; compadd is wrapped to
   * write the matches it is given to a file, and a key pressed after Tab marks the end.
   */
  async function completeInZsh(line: string): Promise<string[]> {
    const out = join(dir, 'zsh-matches');
    const setup = join(dir, 'zsh-setup.zsh');
    await writeFile(
      setup,
      `PS1='> '
autoload -U compinit && compinit -u
source <(mailverify completion zsh)
compadd() {
  if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd "$@"; return $?; fi
  local -a hits
  builtin compadd -A hits "$@"
  (( $#hits )) && print -rl -- $hits >> ${out}
}
_mailverify_test_done() { print -r -- '<<done>>' >> ${out} }
zle -N _mailverify_test_done
bindkey '^X' _mailverify_test_done
`,
    );
    const driver = `zmodload zsh/zpty
: > ${out}
zpty z zsh -f -i
zpty -w z "source ${setup}"
zpty -w -n z "$1"$'\t\x18'
for i in {1..200}; do grep -q '<<done>>' ${out} && break; sleep 0.05; done
zpty -d z
cat ${out}`;
    const zsh = spawnSync('zsh', ['-f', '-c', driver, 'zsh', line], { encoding: 'utf8', env: { ...process.env, PATH: await pathWithCli() } });
    expect(zsh.status, zsh.stderr).toBe(0);
    const lines = zsh.stdout.split('\n').filter(Boolean);
    expect(lines.at(-1), `zsh never finished completing "${line}": ${zsh.stdout}`).toBe('<<done>>');
    return lines.slice(0, -1);
  }

  /** What fish offers for a command line (`complete -C`), the script loaded as its first line says. */
  async function completeInFish(line: string): Promise<string[]> {
    const fish = spawnSync('fish', ['--no-config', '-c', 'mailverify completion fish | source; complete -C $argv[1]', line], {
      encoding: 'utf8',
      env: { ...process.env, PATH: await pathWithCli(), HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data') },
    });
    expect(fish.status, fish.stderr).toBe(0);
    return fish.stdout
      .split('\n')
      .filter(Boolean)
      .map((match) => match.split('\t')[0]!);
  }

  it.skipIf(skipped('zsh'))(
    'completion zsh, loaded in a real zsh, completes commands, subcommands, flags and verdicts on Tab',
    { timeout: 60_000 },
    async () => {
      expect(await completeInZsh('mailverify bu')).toEqual(['bulk']);
      expect(await completeInZsh('mailverify --json bulk st')).toEqual(['status']);
      expect(await completeInZsh('mailverify bulk submit --on')).toEqual(['--only']);
      expect(await completeInZsh('mailverify bulk results job-1 --only ')).toEqual(SELECTORS);
      expect(await completeInZsh('mailverify help exit')).toEqual(['exit-codes']);
    },
  );

  it.skipIf(skipped('fish'))('completion fish, loaded in a real fish, completes commands, subcommands, flags and verdicts', { timeout: 60_000 }, async () => {
    expect(await completeInFish('mailverify bu')).toEqual(['bulk']);
    expect(await completeInFish('mailverify --json bulk st')).toEqual(['status']);
    expect(await completeInFish('mailverify bulk submit --on')).toEqual(['--only']);
    expect((await completeInFish('mailverify bulk results job-1 --only ')).sort()).toEqual([...SELECTORS].sort());
    expect(await completeInFish('mailverify help exit')).toEqual(['exit-codes']);
  });

  it('refuses another shell', async () => {
    const other = await runCli(['completion', 'tcsh']);
    expect(other.code).toBe(2);
  });
});
