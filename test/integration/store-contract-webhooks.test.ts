import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VerificationResult } from '../../src/engine/core/types.js';
import type { DueDelivery, Store, WebhookEvent } from '../../src/server/store/store.js';
import { ABSENCE_GRACE_MS } from '../../src/server/store/postgres/holders.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';

// The webhook part of the store contract (store.ts WebhookStore), on both stores, each test on a fresh one.

const LEASE_MS = 60_000;
/** A holder id no process or session has: what a killed runner leaves on its leases (SQLite: pid:start; PostgreSQL: a session name). */
const GONE_HOLDER = '2147483646:0';

describe.each(STORE_KINDS)('webhooks on the $name store', (kind) => {
  let place: StoreFixture;
  let store: Store;
  let clock: Date;
  const later = (ms: number) => (clock = new Date(clock.getTime() + ms));
  const claim = (holder = 'runner', max = 10) => store.webhooks.claimDeliveries({ max, leaseMs: LEASE_MS, holder });
  const event = (id: string): WebhookEvent => ({ id, type: 'webhook.test', payload: `{"type":"webhook.test","data":{"n":"${id}"}}` });

  async function owner(email = 'owner@example.test'): Promise<number> {
    return (await store.accounts.createUser({ email, passwordHash: null, balance: 100, rateLimit: 20, rateWindowSeconds: 1 })).id;
  }
  const endpoint = async (userId: number, url = 'https://hooks.example.test/in') =>
    (await store.webhooks.createEndpoint(userId, { url, description: null, secret: 'whsec_c2VjcmV0' }))!;

  /** Completes a job of the user with these verdicts, in two batches (the second completes it, unless there is one verdict). */
  async function completeJob(userId: number, verdicts: VerificationResult['result'][]): Promise<string> {
    const created = await store.jobs.createJob(
      userId,
      verdicts.map((_, index) => `a${index}@x.test`),
    );
    if (!created.ok) throw new Error('expected a job');
    const chunk = (await store.work.claimWork({ maxItems: 100, leaseMs: LEASE_MS }))!;
    const results = chunk.items.map((item) => ({
      lease: chunk.lease,
      jobId: chunk.jobId,
      position: item.position,
      result: { email: item.email, result: verdicts[item.position]!, reason: 'test', reasonCode: 'accepted', checks: {} } as unknown as VerificationResult,
    }));
    // Each batch says how many jobs it completed: the node's deliverer is woken for that one only.
    const oneBatch = results.length === 1;
    expect((await store.work.saveResults(results.slice(0, 1))).completedJobs).toBe(oneBatch ? 1 : 0);
    expect(await claim()).toEqual([]);
    expect((await store.work.saveResults(results.slice(1))).completedJobs).toBe(oneBatch ? 0 : 1);
    // A batch arriving after completion (a late duplicate) announces nothing more.
    expect((await store.work.saveResults(results)).completedJobs).toBe(0);
    return created.jobId;
  }

  beforeEach(async () => {
    place = await kind.create();
    clock = new Date('2026-11-21T12:00:00.000Z');
    store = await place.open(() => clock);
  });

  afterEach(() => place.close());

  it("keeps an account's endpoints with their secrets, shows them only to it, and forgets removed ones", async () => {
    const userId = await owner();
    const stranger = await owner('stranger@example.test');
    const created = await endpoint(userId);
    expect(created).toMatchObject({ userId, url: 'https://hooks.example.test/in', description: null, secret: 'whsec_c2VjcmV0', disabledAt: null });
    expect(await store.webhooks.findEndpoint(userId, created.id)).toEqual(created);
    expect(await store.webhooks.findEndpoint(stranger, created.id)).toBeUndefined();
    expect(await store.webhooks.listEndpoints(userId)).toEqual([{ ...created, attempts: [] }]);
    expect(await store.webhooks.removeEndpoint(stranger, created.id)).toBe(false);
    expect(await store.webhooks.removeEndpoint(userId, created.id)).toBe(true);
    expect(await store.webhooks.removeEndpoint(userId, created.id)).toBe(false);
    expect(await store.webhooks.listEndpoints(userId)).toEqual([]);
  });

  it('enqueues one bulk_job.completed delivery per live endpoint in the transaction that completes the job, once', async () => {
    const userId = await owner();
    const [one, two, removed] = [
      await endpoint(userId, 'https://one.example.test/'),
      await endpoint(userId, 'https://two.example.test/'),
      await endpoint(userId),
    ];
    await store.webhooks.removeEndpoint(userId, removed.id);
    await endpoint(await owner('other@example.test'));
    const jobId = await completeJob(userId, ['valid', 'invalid', 'valid']);

    const due = await claim();
    expect(due.map((delivery) => delivery.endpoint.url).sort()).toEqual([one.url, two.url]);
    const [first, second] = due as [DueDelivery, DueDelivery];
    // One event, the same id and body for every endpoint.
    expect(second.event).toEqual(first.event);
    expect(first.event).toMatchObject({ id: expect.stringMatching(/^msg_/), type: 'bulk_job.completed' });
    expect(JSON.parse(first.event.payload)).toEqual({
      type: 'bulk_job.completed',
      timestamp: clock.toISOString(),
      data: {
        jobId,
        status: 'completed',
        total: 3,
        counts: { valid: 2, invalid: 1, risky: 0, catch_all: 0, unknown: 0 },
        resultsUrl: `/v1/bulk-verify/${jobId}`,
      },
    });
    expect(first).toMatchObject({ attempts: 0, endpoint: { secret: 'whsec_c2VjcmV0' } });
    expect(await claim()).toEqual([]);
  });

  it('hands a delivery to one holder at a time, retries it when its time comes, and lists the attempts', async () => {
    const userId = await owner();
    const target = await endpoint(userId);
    await store.webhooks.enqueue(target.id, event('msg_1'));
    const [first] = await claim('a');
    expect(first).toMatchObject({ event: event('msg_1'), attempts: 0 });
    expect(await claim('b')).toEqual([]);

    expect(
      await store.webhooks.recordAttempt({
        lease: first!.lease,
        attempt: { status: 500, latencyMs: 12, error: null },
        next: { kind: 'retry', retryInMs: 5_000 },
      }),
    ).toBe(true);
    // Recorded once: the lease is spent.
    expect(await store.webhooks.recordAttempt({ lease: first!.lease, attempt: { status: 200, latencyMs: 1, error: null }, next: { kind: 'delivered' } })).toBe(
      false,
    );
    later(4_999);
    expect(await claim('b')).toEqual([]);
    later(1);
    const [second] = await claim('b');
    expect(second).toMatchObject({ event: event('msg_1'), attempts: 1 });
    later(100);
    expect(
      await store.webhooks.recordAttempt({
        lease: second!.lease,
        attempt: { status: null, latencyMs: 15_000, error: 'timed out' },
        next: { kind: 'delivered' },
      }),
    ).toBe(true);
    later(10_000);
    expect(await claim()).toEqual([]);
    const [listed] = await store.webhooks.listEndpoints(userId);
    expect(listed!.attempts).toEqual([
      { eventId: 'msg_1', attemptedAt: '2026-11-21T12:00:05.100Z', status: null, latencyMs: 15_000, error: 'timed out' },
      { eventId: 'msg_1', attemptedAt: '2026-11-21T12:00:00.000Z', status: 500, latencyMs: 12, error: null },
    ]);
  });

  it("gives an expired lease's delivery to the next claim, and ignores the old lease's outcome", async () => {
    const target = await endpoint(await owner());
    await store.webhooks.enqueue(target.id, event('msg_2'));
    const [lost] = await claim('a');
    later(LEASE_MS);
    const [taken] = await claim('b');
    expect(taken!.lease).not.toBe(lost!.lease);
    expect(await store.webhooks.recordAttempt({ lease: lost!.lease, attempt: { status: 200, latencyMs: 1, error: null }, next: { kind: 'delivered' } })).toBe(
      false,
    );
    await store.webhooks.releaseDeliveries([taken!.lease]);
    expect((await claim('c')).map((delivery) => delivery.event.id)).toEqual(['msg_2']);
  });

  it('disables an endpoint that answered 410: none of its deliveries is claimed again', async () => {
    const userId = await owner();
    const target = await endpoint(userId);
    await store.webhooks.enqueue(target.id, event('msg_3'));
    await store.webhooks.enqueue(target.id, event('msg_4'));
    const [gone] = await claim('a', 1);
    await store.webhooks.recordAttempt({ lease: gone!.lease, attempt: { status: 410, latencyMs: 3, error: null }, next: { kind: 'disable' } });
    expect(await claim()).toEqual([]);
    expect((await store.webhooks.findEndpoint(userId, target.id))?.disabledAt).toBe(clock.toISOString());
    // A job completing now announces nothing to it.
    await completeJob(userId, ['valid']);
    expect(await claim()).toEqual([]);
  });

  it("frees the deliveries of a holder that is gone in the work queue's rescue (on PostgreSQL once missing for the grace)", async () => {
    const target = await endpoint(await owner());
    await store.webhooks.enqueue(target.id, event('msg_5'));
    const alive = await store.holders.join();
    try {
      const [held] = await claim(alive.id);
      expect(await store.work.rescue()).toBe(0);
      expect(await claim()).toEqual([]);
      await store.webhooks.releaseDeliveries([held!.lease]);
      expect(await claim(GONE_HOLDER)).toHaveLength(1);
      await store.work.rescue();
      // PostgreSQL has only noted the holder's session missing: the delivery is not free yet.
      if (kind.name === 'PostgreSQL') expect(await claim(alive.id)).toEqual([]);
      later(ABSENCE_GRACE_MS);
      await store.work.rescue();
      expect((await claim(alive.id)).map((delivery) => delivery.event.id)).toEqual(['msg_5']);
    } finally {
      await alive.leave();
    }
  });

  it('claims fairly across accounts: the fewest in flight first, a few in flight per account at most, then the oldest due', async () => {
    const [busy, quiet] = [await endpoint(await owner('busy@example.test')), await endpoint(await owner('quiet@example.test'))];
    const start = clock.getTime();
    for (let n = 0; n < 10; n += 1) {
      await store.webhooks.enqueue(busy.id, event(`msg_busy_${n}`));
      later(1);
    }
    later(1_000);
    await store.webhooks.enqueue(quiet.id, event('msg_quiet_0'));
    later(1_000);
    // One of each in turn, though all of busy's are older (a claim's deliveries come in no order).
    const ids = async (claimed: Promise<DueDelivery[]>) => (await claimed).map((delivery) => delivery.event.id).sort();
    expect(await ids(claim('a', 3))).toEqual(['msg_busy_0', 'msg_busy_1', 'msg_quiet_0']);
    await store.webhooks.enqueue(quiet.id, event('msg_quiet_1'));
    // Quiet has one in flight, busy two: quiet's newer delivery comes first.
    expect(await ids(claim('b', 1))).toEqual(['msg_quiet_1']);
    // Busy gets no more than DELIVERIES_IN_FLIGHT_PER_ACCOUNT (4) in flight, whatever room the claim has.
    expect(await ids(claim('c', 100))).toEqual(['msg_busy_2', 'msg_busy_3']);
    expect(await claim('d', 100)).toEqual([]);
    expect(await store.webhooks.backlog()).toEqual({ due: 6, oldestDueAt: start + 4 });
    // A claim's own bound: one in flight per account.
    later(LEASE_MS);
    expect(await ids(store.webhooks.claimDeliveries({ max: 100, leaseMs: LEASE_MS, holder: 'e', perAccount: 1 }))).toEqual(['msg_busy_0', 'msg_quiet_0']);
  });

  it("caps an account's endpoints, counting disabled ones until they are removed", async () => {
    const userId = await owner();
    const other = await owner('other@example.test');
    const create = (user: number) =>
      store.webhooks.createEndpoint(user, { url: 'https://hooks.example.test/in', description: null, secret: 'whsec_c2VjcmV0' }, 3);
    const made = [await create(userId), await create(userId), await create(userId)];
    expect(made.every((each) => each !== undefined)).toBe(true);
    expect(await create(userId)).toBeUndefined();
    expect(await create(other)).toBeDefined();
    expect(await store.webhooks.listEndpoints(userId)).toHaveLength(3);
    await store.webhooks.removeEndpoint(userId, made[0]!.id);
    expect(await create(userId)).toBeDefined();
  });

  it("limits an account's test events per minute, whichever of its endpoints they go to, and not job announcements", async () => {
    const userId = await owner();
    const [one, two] = [await endpoint(userId), await endpoint(userId)];
    const stranger = await endpoint(await owner('stranger@example.test'));
    expect(await store.webhooks.enqueue(one.id, event('msg_t1'), 3)).toBe(true);
    expect(await store.webhooks.enqueue(two.id, event('msg_t2'), 3)).toBe(true);
    later(30_000);
    expect(await store.webhooks.enqueue(one.id, event('msg_t3'), 3)).toBe(true);
    expect(await store.webhooks.enqueue(two.id, event('msg_t4'), 3)).toBe(false);
    expect(await store.webhooks.enqueue(stranger.id, event('msg_s1'), 3)).toBe(true);
    expect(await store.webhooks.enqueue(one.id, { ...event('msg_j1'), type: 'bulk_job.completed' }, 3)).toBe(true);
    later(30_001);
    // The first two are over a minute old now.
    expect(await store.webhooks.enqueue(two.id, event('msg_t5'), 3)).toBe(true);
    expect(await store.webhooks.enqueue(two.id, event('msg_t6'), 3)).toBe(true);
    expect(await store.webhooks.enqueue(two.id, event('msg_t7'), 3)).toBe(false);
  });

  it('prunes settled deliveries, attempts and removed endpoints past the retention, never a delivery still due', async () => {
    const userId = await owner();
    const target = await endpoint(userId);
    const removed = await endpoint(userId);
    await store.webhooks.enqueue(target.id, event('msg_old'));
    const [old] = await claim();
    await store.webhooks.recordAttempt({ lease: old!.lease, attempt: { status: 200, latencyMs: 5, error: null }, next: { kind: 'delivered' } });
    const settledAt = clock.toISOString();
    later(86_400_000);
    await store.webhooks.removeEndpoint(userId, removed.id);
    await store.webhooks.enqueue(target.id, event('msg_new'));
    const [failing] = await claim();
    await store.webhooks.recordAttempt({
      lease: failing!.lease,
      attempt: { status: 500, latencyMs: 5, error: null },
      next: { kind: 'retry', retryInMs: 1_000 },
    });

    expect(await store.webhooks.prune(settledAt)).toBe(0);
    // The delivered delivery and its attempt; not the removed endpoint (removed later), not the delivery still due.
    expect(await store.webhooks.prune(new Date(Date.parse(settledAt) + 1).toISOString())).toBe(2);
    expect((await store.webhooks.listEndpoints(userId))[0]!.attempts.map((attempt) => attempt.eventId)).toEqual(['msg_new']);
    later(2 * 86_400_000);
    // The removed endpoint and the newer attempt; the delivery still due stays, and is claimed.
    expect(await store.webhooks.prune(new Date(clock.getTime() - 1).toISOString())).toBe(2);
    expect((await claim()).map((delivery) => delivery.event.id)).toEqual(['msg_new']);
  });

  it('disables an endpoint none of whose deliveries succeeded for 5 days, saying why; a success starts the count again', async () => {
    const userId = await owner();
    const [failing, recovering] = [await endpoint(userId, 'https://failing.example.test/'), await endpoint(userId, 'https://recovering.example.test/')];
    const attempt = async (target: string, id: string, status: number) => {
      await store.webhooks.enqueue(target, event(id));
      const delivery = (await claim('a', 100)).find((each) => each.event.id === id)!;
      const next = status === 200 ? ({ kind: 'delivered' } as const) : ({ kind: 'retry', retryInMs: 10 * 86_400_000 } as const);
      return store.webhooks.recordAttempt({ lease: delivery.lease, attempt: { status, latencyMs: 5, error: null }, next });
    };
    const since = clock.toISOString();
    await attempt(failing.id, 'msg_f1', 500);
    await attempt(recovering.id, 'msg_r1', 500);
    later(86_400_000);
    await attempt(recovering.id, 'msg_r2', 200);
    later(4 * 86_400_000 - 1);
    await attempt(failing.id, 'msg_f2', 503);
    await attempt(recovering.id, 'msg_r3', 500);
    expect((await store.webhooks.findEndpoint(userId, failing.id))!.disabledAt).toBeNull();
    await store.webhooks.enqueue(failing.id, event('msg_f_waiting'));
    later(1);
    await attempt(failing.id, 'msg_f3', 500);
    const disabled = (await store.webhooks.findEndpoint(userId, failing.id))!;
    expect(disabled.disabledAt).toBe(clock.toISOString());
    expect(disabled.disabledReason).toBe(`No delivery to the endpoint succeeded for 5 days (failing since ${since}).`);
    expect((await store.webhooks.listEndpoints(userId)).find((each) => each.id === failing.id)).toMatchObject({ disabledReason: disabled.disabledReason });
    // Its waiting deliveries stop; the other endpoint, failing for 4 days only, goes on.
    expect((await claim('b', 100)).map((delivery) => delivery.event.id)).toEqual([]);
    expect((await store.webhooks.findEndpoint(userId, recovering.id))!.disabledAt).toBeNull();
    await store.webhooks.enqueue(recovering.id, event('msg_r4'));
    expect((await claim('c', 100)).map((delivery) => delivery.event.id)).toEqual(['msg_r4']);
  });
});
