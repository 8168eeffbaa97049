/**
 * Egress benches shared on the store, with real processes of the built CLI (`npm run build` first)
 * against the real Postfix (test/support/postfix/), which refuses one of two loopback source
 * addresses as blocklisted: one worker on PostgreSQL is refused there and benches that address for
 * the domains it was refused for; a second worker, started afterwards on the same database, never
 * connects from it to that host for those domains.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { missing } from '../support/machine.js';
import { BLOCKED_CLIENTS, postfixEngineArgs, postfixLogFromNow, postfixProblem } from '../support/postfix.js';
import { call, verifyFresh } from '../support/service-app.js';
import { startService, startWorker, type RunningService, type RunningWorker } from '../support/service.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';

const [REFUSED, ALSO_REFUSED] = BLOCKED_CLIENTS;
const SERVED = '127.0.0.76';
const EXPECTED = { 'alice@mailbox.test': 'valid', 'bob@mailbox.test': 'valid', 'nobody@mailbox.test': 'invalid', 'anyone@catchall.test': 'catch_all' };
/** The refused address first: a new session takes the egress with the fewest sessions there, ties in the pool's order. */
const ENGINE_ARGS = [...postfixEngineArgs(), '--retry-schedule', 'none', '--source-address', REFUSED, '--source-address', SERVED];

const postgres = STORE_KINDS.find((kind) => kind.name === 'PostgreSQL');
const absent = missing('test/e2e/egress-bench.test.ts', 'the Postfix fixture', await postfixProblem());

const running: Array<RunningService | RunningWorker> = [];
let place: StoreFixture | undefined;

afterEach(async () => {
  for (const each of running.splice(0).reverse()) await each.stop();
  await place?.close();
  place = undefined;
});

/** Its verdicts of `emails` asked afresh (each with its reason code when `withCodes`). */
async function verifyAll(api: RunningService, token: string, withCodes = false, emails = Object.keys(EXPECTED)): Promise<Record<string, string>> {
  const results = await verifyFresh(api.baseUrl, token, emails);
  return Object.fromEntries(results.map((result) => [result.email, withCodes ? `${result.result} ${result.reasonCode}` : result.result]));
}

describe.skipIf(absent || !postgres)('two workers on one PostgreSQL store, a host that refuses one of their two source addresses', () => {
  it('bench it for every worker: the second never connects from it there for the domains it was refused for', { timeout: 120_000 }, async () => {
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
    // A refusal benches the address for the domain it was about, not for the host's other domains.
    const benched = await place.query<{ provider: string }>(`SELECT provider FROM egress_benches WHERE egress = '${REFUSED}'`);
    const domains = benched.map((row) => row.provider);
    expect(domains.length).toBeGreaterThanOrEqual(1);
    const again = Object.fromEntries(Object.entries(EXPECTED).filter(([email]) => domains.includes(email.split('@')[1]!)));

    const second = await startWorker(api, ENGINE_ARGS);
    running.push(second);
    const secondLog = postfixLogFromNow();
    expect(await verifyAll(api, token, false, Object.keys(again))).toEqual(again);
    expect(await secondLog.connectionsFrom(REFUSED)).toBe(0);
    expect(await secondLog.connectionsFrom(SERVED)).toBeGreaterThanOrEqual(1);
  });
});

describe.skipIf(absent)('a service whose every egress the host refuses', () => {
  it('answers unknown with egress_benched and charges nothing for it', { timeout: 60_000 }, async () => {
    place = await STORE_KINDS.find((kind) => kind.name === 'SQLite')!.create();
    const engineArgs = ENGINE_ARGS.map((arg) => (arg === SERVED ? ALSO_REFUSED : arg));
    const service = await startService({ dataDir: place.location.dataDir, databaseUrl: place.location.databaseUrl, engineArgs });
    running.push(service);
    const token = await service.createUser('owner@example.test', { credits: 10, rateLimit: 1_000 });
    const verdicts = await verifyAll(service, token, true);
    expect(Object.values(verdicts)).toEqual(Object.keys(EXPECTED).map(() => 'unknown egress_benched'));
    expect((await call(service.baseUrl, 'GET', '/v1/account', { token })).body.balance).toBe(10);
  });
});
