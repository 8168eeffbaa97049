import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiToken } from '../../src/server/auth/api-tokens.js';
import { verifyPassword } from '../../src/server/auth/passwords.js';
import { DATABASE_FILE } from '../../src/server/store/open/sqlite-store.js';
import { runCli, startService, type CommandOutput } from '../support/service.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';

// The built binary (`npm run build` first), spawned as an operator would run it on the service host.

const root = mkdtempSync(join(tmpdir(), 'mailverify-admin-'));
const dataDir = join(root, 'data');

const admin = (args: string[], stdin?: string): Promise<CommandOutput> => runCli(['admin', ...args], { env: { MAILVERIFY_DATA_DIR: dataDir }, stdin });

interface ListedUser {
  email: string;
  balance: number;
  rateLimit: { limit: number; windowSeconds: number };
  hasPassword: boolean;
}

async function listed(): Promise<ListedUser[]> {
  const { code, stdout, stderr } = await admin(['user', 'list', '--json']);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout) as ListedUser[];
}

/** A second connection to the data file, as `serve` would hold it. */
function openDatabase(): Sqlite.Database {
  const db = new Sqlite(join(dataDir, DATABASE_FILE));
  db.pragma('busy_timeout = 5000');
  return db;
}

beforeAll(async () => {
  // A fresh data dir holds no database: the first command creates it, as an operator does with --create.
  const first = await admin(['--create', 'user', 'add', 'alice@example.test', '--credits', '100']);
  expect(first).toMatchObject({ code: 0, stderr: '' });
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('mailverify admin (built binary, temp data dir)', () => {
  it('adds users with credits, a rate limit and a password read from stdin', async () => {
    const added = await admin(
      ['--data-dir', dataDir, 'user', 'add', 'bob@example.test', '--credits', '7', '--rate-limit', '50', '--password-stdin', '--json'],
      'hunter2 with spaces\n',
    );
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ email: 'bob@example.test', balance: 7, rateLimit: { limit: 50, windowSeconds: 1 }, hasPassword: true });
    expect(added.stdout).not.toContain('hunter2');

    const db = openDatabase();
    const stored = db.prepare('SELECT password_hash AS hash FROM users WHERE email = ?').get('bob@example.test') as { hash: string };
    db.close();
    expect(stored.hash).not.toContain('hunter2');
    expect(await verifyPassword('hunter2 with spaces', stored.hash)).toBe(true);
    expect(await verifyPassword('hunter2', stored.hash)).toBe(false);

    const users = await listed();
    expect(users.map((user) => [user.email, user.balance, user.rateLimit.limit, user.hasPassword])).toEqual([
      ['alice@example.test', 100, 20, false],
      ['bob@example.test', 7, 50, true],
    ]);
  });

  it('lists users as a table by default', async () => {
    const { code, stdout } = await admin(['user', 'list']);
    expect(code).toBe(0);
    const [header, ...rows] = stdout.trimEnd().split('\n');
    expect(header).toMatch(/^EMAIL\s+BALANCE\s+RATE LIMIT/);
    expect(rows.some((row) => /^alice@example\.test\s+\d+\s+20\/1s/.test(row))).toBe(true);
  });

  it('adds credits, and takes some back without going below zero', async () => {
    const before = (await listed()).find((user) => user.email === 'alice@example.test')!.balance;
    const added = await admin(['credits', 'add', 'ALICE@example.test', '25', '--json']);
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ email: 'alice@example.test', balance: before + 25 });
    const tooMuch = await admin(['credits', 'add', 'alice@example.test', '--', String(-(before + 26))]);
    expect(tooMuch.code).toBe(2);
    expect(tooMuch.stderr).toMatch(/below zero/);
    expect((await listed()).find((user) => user.email === 'alice@example.test')!.balance).toBe(before + 25);
  });

  it('prints only the new mv_ token on stdout, and stores only its hash', async () => {
    const { code, stdout, stderr } = await admin(['token', 'create', 'alice@example.test', '--name', 'ci']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^mv_[0-9a-f]{64}\n$/);
    const token = stdout.trim();

    const db = openDatabase();
    const rows = db.prepare('SELECT name, token_hash AS hash FROM api_tokens').all() as Array<{ name: string; hash: string }>;
    db.close();
    expect(rows).toContainEqual({ name: 'ci', hash: hashApiToken(token) });
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('exits 7 for an unknown user and 2 for bad input', async () => {
    const unknown = await admin(['token', 'create', 'nobody@example.test']);
    expect(unknown.code).toBe(7);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/no user nobody@example\.test/);
    expect((await admin(['credits', 'add', 'nobody@example.test', '5'])).code).toBe(7);
    expect((await admin(['rate-limit', 'set', 'nobody@example.test', '5'])).code).toBe(7);

    for (const args of [
      ['user', 'add', 'Alice@Example.test'],
      ['user', 'add', 'not-an-address'],
      ['user', 'add', 'carol@example.test', '--credits', 'many'],
      ['user', 'add', 'carol@example.test', '--rate-limit', '0'],
      ['credits', 'add', 'alice@example.test', '1.5'],
      ['rate-limit', 'set', 'alice@example.test', '0'],
      ['rate-limit', 'set', 'alice@example.test', '5', '--window', 'soon'],
      ['user', 'remove', 'alice@example.test'],
    ]) {
      const result = await admin(args);
      expect({ args, code: result.code, lines: result.stderr.trim().split('\n').length }).toEqual({ args, code: 2, lines: 1 });
    }
    expect((await listed()).map((user) => user.email)).not.toContain('carol@example.test');
  });

  it('waits for a writer that holds the database, instead of failing', async () => {
    const holder = openDatabase();
    holder.exec('BEGIN IMMEDIATE');
    const pending = admin(['credits', 'add', 'bob@example.test', '3', '--json']);
    await new Promise((resolve) => setTimeout(resolve, 700));
    holder.exec('COMMIT');
    const result = await pending;
    holder.close();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ email: 'bob@example.test', balance: 10 });
  });

  it('loses no grant when several admin processes run at once beside an open connection', async () => {
    const holder = openDatabase();
    const balanceOf = () => (holder.prepare('SELECT balance FROM users WHERE email = ?').get('bob@example.test') as { balance: number }).balance;
    const before = balanceOf();
    const results = await Promise.all(Array.from({ length: 6 }, () => admin(['credits', 'add', 'bob@example.test', '1'])));
    expect(results.map((result) => result.code)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(balanceOf()).toBe(before + 6);
    const ledger = holder.prepare('SELECT SUM(delta) AS total FROM ledger JOIN users ON users.id = ledger.user_id WHERE email = ?').get('bob@example.test') as {
      total: number;
    };
    expect(ledger.total).toBe(before + 6);
    holder.close();
  });

  it('works beside a running `mailverify serve`, which sees its changes at once', async () => {
    const service = await startService();
    try {
      const token = await service.createUser('dave@example.test', { credits: 5, rateLimit: 40 });
      expect((await service.admin(['credits', 'add', 'dave@example.test', '10'])).code).toBe(0);
      const account = () => fetch(`${service.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${token}` } });
      const before = await account();
      expect(before.status).toBe(200);
      expect(await before.json()).toMatchObject({ email: 'dave@example.test', balance: 15, rateLimit: { limit: 40, windowSeconds: 1 } });

      // "Contact support" for a higher limit: the running server applies it from the next request.
      const raised = await service.admin(['rate-limit', 'set', 'dave@example.test', '500', '--window', '60', '--json']);
      expect(raised.code).toBe(0);
      expect(JSON.parse(raised.stdout)).toMatchObject({ email: 'dave@example.test', rateLimit: { limit: 500, windowSeconds: 60 } });
      const after = await account();
      expect(after.headers.get('ratelimit-limit')).toBe('500');
      expect(await after.json()).toMatchObject({ rateLimit: { limit: 500, windowSeconds: 60 } });
    } finally {
      await service.stop();
    }
  });
});

describe('mailverify admin user password (built binary, beside a running serve)', () => {
  it("sets a password read from stdin, ending the user's login JWTs; the new one signs in", async () => {
    const service = await startService();
    try {
      const token = await service.createUser('pat@example.test', { credits: 0, password: 'first pass phrase' });
      const login = (password: string) =>
        fetch(`${service.baseUrl}/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'pat@example.test', password }),
        });
      const account = (bearer: string) => fetch(`${service.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${bearer}` } });
      const { token: jwt } = (await (await login('first pass phrase')).json()) as { token: string };
      expect((await account(jwt)).status).toBe(200);

      expect((await service.admin(['user', 'password', 'pat@example.test'], 'second pass phrase\n')).code).toBe(2);
      expect((await service.admin(['user', 'password', 'pat@example.test', '--password-stdin'], 'short\n')).code).toBe(2);
      const changed = await service.admin(['user', 'password', 'pat@example.test', '--password-stdin', '--json'], 'second pass phrase\n');
      expect(changed.code, changed.stderr).toBe(0);
      expect(JSON.parse(changed.stdout)).toEqual({ email: 'pat@example.test', passwordChanged: true });
      expect(changed.stdout + changed.stderr).not.toContain('second pass phrase');

      expect((await account(jwt)).status).toBe(401);
      expect((await account(token)).status).toBe(200);
      expect((await login('first pass phrase')).status).toBe(401);
      expect((await login('second pass phrase')).status).toBe(200);
      expect((await service.admin(['user', 'password', 'nobody@example.test', '--password-stdin'], 'second pass phrase\n')).code).toBe(7);
    } finally {
      await service.stop();
    }
  });
});

describe('mailverify admin --database-url (built binary, PostgreSQL)', () => {
  let place: StoreFixture;
  beforeAll(async () => {
    place = await STORE_KINDS.find((kind) => kind.name === 'PostgreSQL')!.create();
  });
  afterAll(() => place?.close());

  it('works beside a running `mailverify serve --database-url`, which sees a new rate limit within moments', async () => {
    const service = await startService({ databaseUrl: place.location.databaseUrl });
    try {
      const token = await service.createUser('erin@example.test', { credits: 5, rateLimit: 40 });
      expect((await service.admin(['credits', 'add', 'erin@example.test', '10'])).code).toBe(0);
      const account = () => fetch(`${service.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${token}` } });
      expect(await (await account()).json()).toMatchObject({ email: 'erin@example.test', balance: 15, rateLimit: { limit: 40 } });
      // Nothing of it is in the data dir: the admin process and serve share only the database.
      expect(existsSync(join(service.dataDir, DATABASE_FILE))).toBe(false);

      expect((await service.admin(['rate-limit', 'set', 'erin@example.test', '500'])).code).toBe(0);
      // The database notifies serve, which drops its cached limit: no waiting out a cache's TTL.
      await expect.poll(async () => (await account()).headers.get('ratelimit-limit'), { timeout: 1_000 }).toBe('500');
    } finally {
      await service.stop();
    }
  });

  it('refuses a password on the command line without repeating it, and names a database it cannot reach without its password', async () => {
    const withPassword = await runCli(['admin', '--database-url', 'postgres://ann:hunter2@127.0.9.1:1/mv', 'user', 'list']);
    expect(withPassword.code).toBe(2);
    expect(withPassword.stderr).toMatch(/must not carry a password.*PGPASSWORD/);
    expect(withPassword.stderr).not.toContain('hunter2');

    const unreachable = await runCli(['admin', 'user', 'list'], { env: { MAILVERIFY_DATABASE_URL: 'postgres://ann:hunter2@127.0.9.1:1/mv' } });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/cannot open the database 127\.0\.9\.1:1\/mv/);
    expect(unreachable.stderr).not.toContain('hunter2');
    expect(unreachable.stderr.trim().split('\n')).toHaveLength(1);
  });
});
