import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as creditsAdd from '../../src/cli/commands/admin/credits-add.js';
import * as userAdd from '../../src/cli/commands/admin/user-add.js';
import * as userList from '../../src/cli/commands/admin/user-list.js';
import * as serve from '../../src/cli/commands/serve.js';
import { UsageError } from '../../src/cli/output/errors.js';
import { memoryIo, parseCommandLine } from '../support/cli-parse.js';

/** `admin …` and `serve`: their arguments checked before a store is opened, and admin's run on a store of its own. */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailverify-admin-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('admin: parse', () => {
  it("reads admin's store flags and the subcommand's own", () => {
    const parsed = userAdd.parse(parseCommandLine(['admin', '--data-dir', dir, 'user', 'add', ' ops@example.com ', '--credits', '50', '--rate-limit', '5']));
    expect(parsed).toEqual({
      store: { dataDir: dir, databaseUrl: undefined, storeTimeout: undefined, create: false },
      email: 'ops@example.com',
      credits: 50,
      rateLimit: 5,
      passwordStdin: false,
    });
  });

  it.each([
    [['admin', 'user', 'add', 'nobody'], '"nobody" is not an email address'],
    [['admin', 'user', 'add', 'a@example.com', '--credits', '-1'], '--credits must be a whole number of at least 0; got "-1"'],
    [['admin', 'user', 'add', 'a@example.com', '--rate-limit', '1.5'], '--rate-limit must be a whole number of at least 1; got "1.5"'],
  ])('refuses %j (exit 2)', (argv, message) => {
    expect(() => userAdd.parse(parseCommandLine(argv))).toThrow(UsageError);
    expect(() => userAdd.parse(parseCommandLine(argv))).toThrow(message);
  });

  it('refuses to add no credits', () => {
    expect(() => creditsAdd.parse(parseCommandLine(['admin', 'credits', 'add', 'a@example.com', '0']))).toThrow('the number of credits must not be 0');
  });
});

describe('admin: run', () => {
  it('refuses a data dir without a database unless --create, then adds and lists users', async () => {
    const dataDir = join(dir, 'data');
    const { io } = memoryIo({});
    await expect(userList.run(userList.parse(parseCommandLine(['admin', '--data-dir', dataDir, 'user', 'list'])), io)).rejects.toThrow(
      `no mailverify database in ${dataDir}`,
    );
    await userAdd.run(userAdd.parse(parseCommandLine(['admin', '--data-dir', dataDir, '--create', 'user', 'add', 'ops@example.com', '--credits', '7'])), io);
    const listed = memoryIo({}, { json: true });
    await userList.run(userList.parse(parseCommandLine(['admin', '--data-dir', dataDir, 'user', 'list'])), listed.io);
    expect(JSON.parse(listed.stdout())).toMatchObject([{ email: 'ops@example.com', balance: 7 }]);
  });
});

describe('serve: parse', () => {
  it('takes the defaults of --host and --port, and --no-worker', async () => {
    expect(await serve.parse(parseCommandLine(['serve', '--no-worker']), {})).toMatchObject({ port: 8025, host: '127.0.0.1', worker: false });
  });

  it('refuses a port out of range (exit 2)', async () => {
    await expect(serve.parse(parseCommandLine(['serve', '--port', '70000']), {})).rejects.toThrow('--port must be a whole number from 0 to 65535, got "70000"');
  });
});
