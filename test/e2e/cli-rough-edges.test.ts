/** Small things a new user meets first, through the built CLI. */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/service.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailverify-edges-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('serve on a port that is taken', () => {
  let taken: Server;
  afterEach(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  it('names --port, exits 1 and has created nothing', async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve()));
    const port = (taken.address() as { port: number }).port;
    const dataDir = join(dir, 'new-data');
    const serve = await runCli(['serve', '--host', '127.0.0.1', '--port', String(port), '--data-dir', dataDir]);
    expect(serve.code).toBe(1);
    expect(serve.stderr).toMatch(new RegExp(`^mailverify: cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use`));
    expect(serve.stderr).toContain('--port');
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('admin user add', () => {
  it('refuses a password shorter than 8 characters (exit 2), and takes one of 8', async () => {
    const env = { MAILVERIFY_DATA_DIR: join(dir, 'data') };
    const short = await runCli(['admin', '--create', 'user', 'add', 'ann@example.org', '--password-stdin'], { env, stdin: 'seven77\n' });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/^mailverify: the password is too short: at least 8 characters/);
    const fine = await runCli(['admin', '--create', 'user', 'add', 'ann@example.org', '--password-stdin'], { env, stdin: 'eight888\n' });
    expect(fine.code, fine.stderr).toBe(0);
  });
});

describe('every error', () => {
  it("starts with mailverify:, commander's own too", async () => {
    const unknown = await runCli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^mailverify: unknown command 'frobnicate'/);
  });

  it('gives an argument error the same hint in human mode as under --json', async () => {
    for (const args of [['verify'], ['verify', '--frobnicate', 'ann@example.org']]) {
      const human = await runCli(args);
      const json = await runCli([...args, '--json']);
      expect(human.code).toBe(2);
      const { message, hint } = (JSON.parse(json.stderr) as { error: { message: string; hint: string } }).error;
      expect(hint).toContain('--help');
      expect(human.stderr).toBe(`mailverify: ${message} (${hint})\n`);
    }
  });
});
