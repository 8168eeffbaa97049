import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/server/store/open/open-store.js';
import type { Holder, Store } from '../../src/server/store/store.js';
import { STORE_KINDS } from '../support/stores.js';
import { createTestDatabase } from '../support/postgres.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

// Liveness that survives the network (docs/architecture.md "Liveness beside leases"), on PostgreSQL:
// between a node and the database a forwarder plays the NAT gateway or load balancer that drops a
// connection without a word, closing the server's side only.

const postgres = STORE_KINDS.some((kind) => kind.name === 'PostgreSQL');
const cleanup: Array<() => unknown> = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(50);
  }
}

async function database(): Promise<{ url: URL; dataDir: string }> {
  const made = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'mailverify-liveness-'));
  cleanup.push(async () => {
    await made.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { url: new URL(made.url), dataDir };
}

async function opened(databaseUrl: string, dataDir: string): Promise<Store> {
  const store = await openStore({ dataDir, databaseUrl });
  cleanup.push(() => store.close());
  return store;
}

async function joined(store: Store): Promise<Holder> {
  const holder = await store.holders.join();
  cleanup.push(() => holder.leave());
  return holder;
}

describe.runIf(postgres)('liveness on PostgreSQL', () => {
  it('a holder whose connection is dropped without a word stops working before another node takes its leases, and stands again once back', async () => {
    const { url, dataDir } = await database();
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    cleanup.push(() => proxy.close());
    const throughProxy = new URL(url);
    throughProxy.hostname = proxy.host;
    throughProxy.port = String(proxy.port);
    const node = await opened(throughProxy.toString(), dataDir);
    const other = await opened(url.toString(), dataDir);
    const holder = await joined(node);

    const user = await other.accounts.createUser({ email: 'owner@example.test', passwordHash: null, balance: 10, rateLimit: 20, rateWindowSeconds: 1 });
    const created = await other.jobs.createJob(user.id, ['ann@example.org']);
    if (!created.ok) throw new Error('the job was not created');
    const chunk = await other.work.claimWork({ maxItems: 10, leaseMs: 60_000, holder: holder.id });
    expect(chunk?.items).toHaveLength(1);
    // Alive and connected: the other node's rescues take nothing, however often they look.
    for (let look = 0; look < 3; look++) expect(await other.work.rescue()).toBe(0);

    const events: string[] = [];
    holder.onLapse(() => events.push('the holder stopped'));
    proxy.dropSilently();
    await waitFor(
      'the other node to take the leases over',
      async () => {
        if ((await other.work.rescue()) === 0) return false;
        events.push('the other node took its leases');
        return true;
      },
      30_000,
    );

    expect(events).toEqual(['the holder stopped', 'the other node took its leases']);
    expect(holder.standing()).toBe(false);

    proxy.heal();
    await waitFor('the holder to stand again', () => holder.standing(), 20_000);
    // Back under its name: its new lease is its own again, whatever the other node's rescues.
    const again = await other.jobs.createJob(user.id, ['bob@example.org']);
    if (!again.ok) throw new Error('the job was not created');
    expect(await other.work.claimWork({ maxItems: 10, leaseMs: 60_000, holder: holder.id })).toBeDefined();
    for (let look = 0; look < 3; look++) {
      expect(await other.work.rescue()).toBe(0);
      await pause(2_000);
    }
  }, 90_000);

  it('asks for TCP keepalive on every connection: the pool, the change listener and the holder', async () => {
    const { url, dataDir } = await database();
    const store = await opened(url.toString(), dataDir);
    await joined(store);
    await Promise.all([store.install.ping(), store.install.ping(), store.accounts.listUsers()]);
    // ss shows each TCP socket of this process to the server with its timer: keepalive when asked for.
    const sockets = execFileSync('ss', ['-tnpoH', 'state', 'established', 'dst', `${url.hostname}:${url.port || 5432}`], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes(`pid=${process.pid},`));
    // The pool's (at least one), the listener's and the holder's.
    expect(sockets.length).toBeGreaterThanOrEqual(3);
    for (const socket of sockets) expect(socket).toContain('timer:(keepalive');
  });
});
