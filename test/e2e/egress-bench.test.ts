/**
 * Egress benches shared on the store, with real processes of the built CLI (`npm run build` first)
 * against the real Postfix (test/support/postfix/), which refuses one of two loopback source
 * addresses as blocklisted: one worker on PostgreSQL is refused there and benches that address;
 * a second worker, started afterwards on the same database, never connects from it to that host.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { missing } from '../support/machine.js';
import { BLOCKED_CLIENTS, DNS_SERVER, postfixLogFromNow, postfixProblem } from '../support/postfix.js';
import { call, pollProgress } from '../support/service-app.js';
import { startService, startWorker, type RunningService, type RunningWorker } from '../support/service.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';

const [REFUSED] = BLOCKED_CLIENTS;
const SERVED = '127.0.0.76';
const EXPECTED = { 'alice@mailbox.test': 'valid', 'bob@mailbox.test': 'valid', 'nobody@mailbox.test': 'invalid', 'anyone@catchall.test': 'catch_all' };
/** The refused address first: a new session takes the egress with the fewest sessions there, ties in the pool's order. */
const ENGINE_ARGS = [
  '--dns-server', DNS_SERVER, '--smtp-port', '25', '--helo', 'probe.verifier.test', '--greylist-retry', '0',
  '--source-address', REFUSED, '--source-address', SERVED,
];

const postgres = STORE_KINDS.find((kind) => kind.name === 'PostgreSQL');
const absent = missing('test/e2e/egress-bench.test.ts', 'the Postfix fixture', await postfixProblem());

const running: Array<RunningService | RunningWorker> = [];
let place: StoreFixture | undefined;

afterEach(async () => {
  for (const each of running.splice(0).reverse()) await each.stop();
  await place?.close();
  place = undefined;
});

/** Submits the list afresh (no cached verdict) and waits for it; its verdicts. */
async function verifyAll(api: RunningService, token: string): Promise<Record<string, string>> {
  const submitted = await call(api.baseUrl, 'POST', '/v1/bulk-verify', { token, json: { emails: Object.keys(EXPECTED), fresh: true } });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
  const jobId = submitted.body.jobId as string;
  await pollProgress(api.baseUrl, jobId, token, (progress) => progress.status === 'completed');
  const job = await call(api.baseUrl, 'GET', `/v1/bulk-verify/${jobId}`, { token });
  return Object.fromEntries((job.body.results as Array<{ email: string; result: string }>).map((result) => [result.email, result.result]));
}

describe.skipIf(absent || !postgres)('two workers on one PostgreSQL store, a host that refuses one of their two source addresses', () => {
  it('bench it for every worker: the second never connects from it there', { timeout: 120_000 }, async () => {
    place = await postgres!.create();
    const api = await startService({ dataDir: place.location.dataDir, databaseUrl: place.location.databaseUrl, engineArgs: [...ENGINE_ARGS, '--no-worker'] });
    running.push(api);
    const token = await api.createUser('owner@example.test', { credits: 1_000, rateLimit: 1_000 });

    const first = await startWorker(api, ENGINE_ARGS);
    running.push(first);
    const firstLog = postfixLogFromNow();
    expect(await verifyAll(api, token)).toEqual(EXPECTED);
    // The first worker was refused there (the test means something), and every verdict came through the other address.
    expect(await firstLog.connectionsFrom(REFUSED)).toBeGreaterThanOrEqual(1);
    await first.stop();
    running.splice(running.indexOf(first), 1);

    const second = await startWorker(api, ENGINE_ARGS);
    running.push(second);
    const secondLog = postfixLogFromNow();
    expect(await verifyAll(api, token)).toEqual(EXPECTED);
    expect(await secondLog.connectionsFrom(REFUSED)).toBe(0);
    expect(await secondLog.connectionsFrom(SERVED)).toBeGreaterThanOrEqual(1);
  });
});
