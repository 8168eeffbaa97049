import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

/**
 * Vitest global setup: finds the PostgreSQL server the tests use, once per run, and provides its
 * URL (`inject('postgresServer')`; test/support/postgres.ts makes a database per test file on it).
 * The server on 127.0.0.1:5432 when it takes user postgres without a password (a developer's, or
 * CI's), else a throwaway cluster from Debian's postgresql package, started here in a temp dir on
 * 127.0.9.1 and removed after the run.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    postgresServer: string;
  }
}

const SHARED_SERVER = 'postgres://postgres@127.0.0.1:5432/postgres';
/** Our loopback address (127.0.9.x is the store's range), so a cluster never collides with another's. */
const CLUSTER_HOST = '127.0.9.1';

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The newest installed server's programs (Debian keeps them out of PATH, per major version). */
export function serverBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return versions.length === 0 ? undefined : join(root, versions[0]!, 'bin');
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** PostgreSQL refuses to run as root: as root, its programs run as the postgres user. */
function runAsServerUser(program: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const [command, commandArgs] = asRoot ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, args];
  execFileSync(command, commandArgs, { stdio: ['ignore', 'ignore', 'pipe'] });
}

export interface Cluster {
  url: string;
  /** Stops the server as an operator's restart does (`pg_ctl stop -m fast`), keeping its data. */
  pause(): void;
  /** Starts it again on the same address and data. */
  resume(): void;
  /** Stops it for good and removes its files. */
  stop(): void;
}

/** A throwaway cluster of its own (a test that restarts its database must not restart everyone's). */
export async function startCluster(): Promise<Cluster> {
  const bin = serverBinDir();
  if (bin === undefined) throw new Error('no PostgreSQL server programs installed (`npm run test:setup` installs them)');
  const dir = mkdtempSync(join(tmpdir(), 'mailverify-pg-'));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const port = await freePort(CLUSTER_HOST);
  runAsServerUser(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  // Durability is worth nothing to a cluster deleted after the run.
  const serverOptions = `-h ${CLUSTER_HOST} -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const start = () => runAsServerUser(join(bin, 'pg_ctl'), ['-D', data, '-o', serverOptions, '-l', join(dir, 'server.log'), '-w', 'start']);
  start();
  return {
    url: `postgres://postgres@${CLUSTER_HOST}:${port}/postgres`,
    pause: () => runAsServerUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']),
    resume: start,
    stop() {
      // A paused cluster has nothing to stop.
      if (existsSync(join(data, 'postmaster.pid'))) runAsServerUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  if (await answers(SHARED_SERVER)) {
    project.provide('postgresServer', SHARED_SERVER);
    return undefined;
  }
  // Neither a server nor its programs: the PostgreSQL tests skip, saying so (test/support/stores.ts).
  if (serverBinDir() === undefined) {
    project.provide('postgresServer', '');
    return undefined;
  }
  const cluster = await startCluster();
  project.provide('postgresServer', cluster.url);
  return cluster.stop;
}
