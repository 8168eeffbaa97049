import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as completion from '../../src/cli/commands/completion.js';
import * as help from '../../src/cli/commands/help.js';
import * as login from '../../src/cli/commands/login.js';
import * as profileUse from '../../src/cli/commands/profile/use.js';
import { UsageError } from '../../src/cli/output/errors.js';
import { TOPICS } from '../../src/cli/help/topics.js';
import { memoryIo, parseCommandLine } from '../support/cli-parse.js';

/** `login`, `profile use`, `help` and `completion` run without a process or a service. */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailverify-account-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('login', () => {
  it('reads its flags into options', () => {
    expect(
      login.parse(parseCommandLine(['--profile', 'staging', 'login', '--email', 'me@example.com', '--password-stdin', '--insecure-storage'])),
    ).toMatchObject({
      program: { profile: 'staging' },
      withToken: false,
      email: 'me@example.com',
      passwordStdin: true,
      insecureStorage: true,
    });
  });

  it.each([
    [['--with-token', '--email', 'me@example.com'], '--with-token cannot be combined with --email or --password-stdin'],
    [['--password-stdin'], '--password-stdin needs --email'],
    [[], 'stdin is not a terminal, so there is nobody to ask for a password'],
  ])('refuses %j (exit 2) before it reads stdin', async (argv, message) => {
    const { io } = memoryIo({ MAILVERIFY_CONFIG_DIR: join(dir, 'config') });
    const refused = login.run(login.parse(parseCommandLine(['login', ...argv])), io);
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow(message);
  });
});

describe('profile use', () => {
  it('refuses a profile that is not there (exit 2)', async () => {
    const { io } = memoryIo({ MAILVERIFY_CONFIG_DIR: join(dir, 'config') });
    await expect(profileUse.run(profileUse.parse(parseCommandLine(['profile', 'use', 'nowhere'])), io)).rejects.toThrow('no profile named "nowhere"');
  });
});

describe('help and completion', () => {
  it('help prints a topic on stdout', async () => {
    const { io, stdout } = memoryIo({});
    await help.run(help.parse(parseCommandLine(['help', 'exit-codes'])), io);
    expect(stdout()).toBe(TOPICS['exit-codes']);
  });

  it('help refuses what is neither a topic nor a command (exit 2)', async () => {
    const { io } = memoryIo({});
    await expect(help.run(help.parse(parseCommandLine(['help', 'bulk', 'nothing'])), io)).rejects.toThrow('no help topic or command "bulk nothing"');
  });

  it('completion takes bash, zsh or fish, and prints a script naming every command', async () => {
    expect(() => completion.parse(parseCommandLine(['completion', 'tcsh']))).toThrow('completion takes bash, zsh, fish; got "tcsh"');
    const { io, stdout } = memoryIo({});
    await completion.run(completion.parse(parseCommandLine(['completion', 'fish'])), io);
    expect(stdout()).toContain('bulk');
    expect(stdout()).toContain('-l fail-on');
  });
});
