/**
 * A PostgreSQL database of its own for a benchmark, on the server in MAILVERIFY_BENCH_DATABASE_URL
 * (a URL whose user may create databases), else on postgres@127.0.0.1:5432 when that answers.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const DEFAULT_SERVER = 'postgres://postgres@127.0.0.1:5432/postgres';

async function onServer(serverUrl, statement) {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query(statement);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * @returns {Promise<{ url: string, drop(): Promise<void> } | { missing: string }>}
 */
export async function createBenchDatabase(env = process.env) {
  const serverUrl = env.MAILVERIFY_BENCH_DATABASE_URL || DEFAULT_SERVER;
  const name = `mv_bench_${randomBytes(6).toString('hex')}`;
  try {
    await onServer(serverUrl, `CREATE DATABASE ${name}`);
  } catch (error) {
    return { missing: `no PostgreSQL at ${new URL(serverUrl).host} (${error.message}); set MAILVERIFY_BENCH_DATABASE_URL` };
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
