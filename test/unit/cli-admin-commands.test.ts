import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as creditsAdd from '../../src/cli/commands/admin/credits-add.js';
import * as rateLimitSet from '../../src/cli/commands/admin/rate-limit-set.js';
import * as tokenCreate from '../../src/cli/commands/admin/token-create.js';
import * as userAdd from '../../src/cli/commands/admin/user-add.js';
import * as userDelete from '../../src/cli/commands/admin/user-delete.js';
import * as userList from '../../src/cli/commands/admin/user-list.js';
import * as userPassword from '../../src/cli/commands/admin/user-password.js';
import * as serve from '../../src/cli/commands/serve.js';
import { CliError, UsageError } from '../../src/cli/output/errors.js';
import { hashApiToken } from '../../src/server/auth/api-tokens.js';
import { verifyPassword } from '../../src/server/auth/passwords.js';
import { openStore } from '../../src/server/store/open/open-store.js';
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

  it('reads the credits, the rate limit and its window, the token name, the user named', () => {
    const store = { dataDir: dir, databaseUrl: undefined, storeTimeout: undefined, create: false };
    const admin = (...argv: string[]) => parseCommandLine(['admin', '--data-dir', dir, ...argv]);
    expect(creditsAdd.parse(admin('credits', 'add', 'a@example.com', '--', '-5'))).toEqual({ store, email: 'a@example.com', delta: -5 });
    expect(rateLimitSet.parse(admin('rate-limit', 'set', 'a@example.com', '50', '--window', '60'))).toEqual({
      store,
      email: 'a@example.com',
      requests: 50,
      window: 60,
    });
    expect(rateLimitSet.parse(admin('rate-limit', 'set', 'a@example.com', '5')).window).toBeUndefined();
    expect(tokenCreate.parse(admin('token', 'create', 'a@example.com'))).toEqual({ store, email: 'a@example.com', name: 'admin' });
    expect(tokenCreate.parse(admin('token', 'create', 'a@example.com', '--name', 'ci')).name).toBe('ci');
    expect(userDelete.parse(admin('user', 'delete', 'a@example.com'))).toEqual({ store, email: 'a@example.com' });
    expect(userPassword.parse(admin('user', 'password', 'a@example.com', '--password-stdin'))).toEqual({ store, email: 'a@example.com' });
  });

  it.each([
    [rateLimitSet.parse, ['rate-limit', 'set', 'a@example.com', '0'], 'the number of requests must be a whole number of at least 1; got "0"'],
    [rateLimitSet.parse, ['rate-limit', 'set', 'a@example.com', '5', '--window', 'minute'], '--window must be a whole number of at least 1; got "minute"'],
    [creditsAdd.parse, ['credits', 'add', 'a@example.com', 'many'], 'the number of credits must be a whole number; got "many"'],
    [userPassword.parse, ['user', 'password', 'a@example.com'], 'give the new password on stdin with --password-stdin'],
  ])('refuses admin %#: %j (exit 2)', (parse, argv, message) => {
    expect(() => parse(parseCommandLine(['admin', ...argv]))).toThrow(UsageError);
    expect(() => parse(parseCommandLine(['admin', ...argv]))).toThrow(message);
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

describe('admin: run on one user', () => {
  const dataDir = () => join(dir, 'one-user');
  const admin = (...argv: string[]) => parseCommandLine(['admin', '--data-dir', dataDir(), ...argv]);
  const inStore = async <T>(work: (store: Awaited<ReturnType<typeof openStore>>) => Promise<T>): Promise<T> => {
    const store = await openStore({ dataDir: dataDir() });
    try {
      return await work(store);
    } finally {
      await store.close();
    }
  };
  const findUser = () => inStore((store) => store.accounts.findUserByEmail('ops@example.com'));

  beforeAll(async () => {
    await userAdd.run(
      userAdd.parse(parseCommandLine(['admin', '--data-dir', dataDir(), '--create', 'user', 'add', 'ops@example.com', '--credits', '10'])),
      memoryIo({}).io,
    );
  });

  it('adds and takes back credits, refusing a balance below zero (exit 2)', async () => {
    const added = memoryIo({});
    await creditsAdd.run(creditsAdd.parse(admin('credits', 'add', 'ops@example.com', '5')), added.io);
    expect(added.stdout()).toBe('ops@example.com  balance 15  rate limit 20/1s\n');
    const refused = creditsAdd.run(creditsAdd.parse(admin('credits', 'add', 'ops@example.com', '--', '-16')), memoryIo({}).io);
    await expect(refused).rejects.toThrow(UsageError);
    expect((await findUser())?.balance).toBe(15);
  });

  it('sets the rate limit, keeping the window unless --window says otherwise', async () => {
    const set = memoryIo({});
    await rateLimitSet.run(rateLimitSet.parse(admin('rate-limit', 'set', 'ops@example.com', '50')), set.io);
    expect(set.stdout()).toBe('ops@example.com  balance 15  rate limit 50/1s\n');
    const json = memoryIo({}, { json: true });
    await rateLimitSet.run(rateLimitSet.parse(admin('rate-limit', 'set', 'ops@example.com', '600', '--window', '60')), json.io);
    expect(JSON.parse(json.stdout())).toMatchObject({ email: 'ops@example.com', rateLimit: { limit: 600, windowSeconds: 60 } });
    expect(await findUser()).toMatchObject({ rateLimit: 600, rateWindowSeconds: 60 });
  });

  it('creates a token that the store knows, printing nothing but the token', async () => {
    const { io, stdout, stderr } = memoryIo({});
    await tokenCreate.run(tokenCreate.parse(admin('token', 'create', 'ops@example.com', '--name', 'ci')), io);
    const token = stdout().trim();
    expect(stdout()).toMatch(/^mv_\S+\n$/);
    expect(stderr()).toBe('');
    const user = await findUser();
    expect(await inStore((store) => store.tokens.findApiTokenByHash(hashApiToken(token)))).toMatchObject({ userId: user!.id, name: 'ci' });
  });

  it('sets a password read from stdin, refusing a short one (exit 2)', async () => {
    const short = userPassword.run(userPassword.parse(admin('user', 'password', 'ops@example.com', '--password-stdin')), memoryIo({}, { stdin: 'short\n' }).io);
    await expect(short).rejects.toThrow('the password is too short: at least 8 characters');
    expect((await findUser())?.passwordHash).toBeNull();
    const { io, stdout, stderr } = memoryIo({}, { stdin: 'correct horse battery\n' });
    await userPassword.run(userPassword.parse(admin('user', 'password', 'ops@example.com', '--password-stdin')), io);
    expect(stdout()).toBe('');
    expect(stderr()).toBe('password of ops@example.com changed; their login tokens and dashboard sessions ended\n');
    expect(await verifyPassword('correct horse battery', (await findUser())!.passwordHash!)).toBe(true);
  });

  it('deletes the user, then finds no such user (exit 7)', async () => {
    const { io, stdout } = memoryIo({}, { json: true });
    await userDelete.run(userDelete.parse(admin('user', 'delete', 'ops@example.com')), io);
    expect(JSON.parse(stdout())).toEqual({ email: 'ops@example.com', deleted: true });
    expect(await findUser()).toBeUndefined();
    const again = userDelete.run(userDelete.parse(admin('user', 'delete', 'ops@example.com')), memoryIo({}).io);
    await expect(again).rejects.toThrow(CliError);
    await expect(again).rejects.toMatchObject({ message: 'no user ops@example.com', exitCode: 7 });
    await expect(tokenCreate.run(tokenCreate.parse(admin('token', 'create', 'ops@example.com')), memoryIo({}).io)).rejects.toThrow('no user ops@example.com');
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
