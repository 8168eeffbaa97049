import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newProcessHolderId, THIS_PROCESS } from '../../src/server/store/processes.js';
import type { VerificationResult } from '../../src/engine/core/types.js';
import {
  IDEMPOTENCY_CLAIM_TTL_MS,
  IDEMPOTENCY_TTL_MS,
  LOGIN_WINDOW_MAX_SECONDS,
  StoreError,
  type Holder,
  type Store,
  type User,
  type WorkChunk,
} from '../../src/server/store/store.js';
import { HOST_SLOT_WAIT_MS } from '../../src/server/store/flows/host-slots.js';
import { ABSENCE_GRACE_MS } from '../../src/server/store/postgres/holders.js';
import { startCharger, STORE_KINDS, type StoreFixture } from '../support/stores.js';

// One contract, both stores: every test runs on SQLite and on PostgreSQL, each on a fresh store.

describe.each(STORE_KINDS)('the $name store', (kind) => {
  let place: StoreFixture;
  let store: Store;
  let clock: Date;

  /** Another connection to the same store, on the test's clock. */
  function open(): Promise<Store> {
    return place.open(() => clock);
  }

  async function addUser(email: string, balance: number): Promise<User> {
    return store.accounts.createUser({ email, passwordHash: null, balance, rateLimit: 20, rateWindowSeconds: 1 });
  }

  function resultFor(email: string, reason = 'test'): VerificationResult {
    return {
      email,
      result: 'valid',
      reason,
      reasonCode: 'accepted',
      checks: {
        format: true,
        domainExists: true,
        hasMx: true,
        domainReachable: false,
        smtpStatus: 'valid',
        isDisposable: false,
        isRole: false,
        isBlacklisted: false,
        isKnownProvider: false,
        isCatchAll: false,
      },
    };
  }

  /** The ledger must explain the balance: every change is a row, and their sum is what is left. */
  async function expectLedgerAddsUp(userId: number): Promise<void> {
    const entries = await store.accounts.ledger(userId);
    const sum = entries.reduce((total, entry) => total + entry.delta, 0);
    expect(sum).toBe((await store.accounts.findUserById(userId))!.balance);
    expect(entries.at(-1)?.balanceAfter ?? 0).toBe(sum);
  }

  beforeEach(async () => {
    place = await kind.create();
    clock = new Date('2026-11-21T12:00:00.000Z');
    store = await open();
  });

  afterEach(() => place.close());

  describe('the result cache', () => {
    const verdict = (email: string, result: VerificationResult['result'] = 'valid'): VerificationResult => ({ ...resultFor(email), result });
    const now = Date.parse('2026-11-21T12:00:00.000Z');
    const entry = (addressKey: string, userId: number, result: VerificationResult, verifiedAt: string, freshUntil: number) => ({
      addressKey,
      userId,
      result,
      verifiedAt,
      freshUntil,
    });

    it('recalls the newest fresh verdict per address, by anyone or by one account only', async () => {
      await store.resultCache.remember([
        entry('a@x.test', 1, verdict('a@x.test'), '2026-11-20T10:00:00.000Z', now + 1_000),
        entry('a@x.test', 2, verdict('A@x.test', 'invalid'), '2026-11-21T10:00:00.000Z', now + 1_000),
        entry('b@x.test', 1, verdict('b@x.test'), '2026-11-01T10:00:00.000Z', now),
      ]);
      const anyone = await store.resultCache.recall(['a@x.test', 'b@x.test', 'c@x.test'], now);
      expect([...anyone.keys()]).toEqual(['a@x.test']);
      // With whose job found it: another account's verifiedAt is given to the day (result-reuse.ts).
      expect(anyone.get('a@x.test')).toEqual({ result: verdict('A@x.test', 'invalid'), verifiedAt: '2026-11-21T10:00:00.000Z', userId: 2 });
      expect((await store.resultCache.recall(['a@x.test'], now, 1)).get('a@x.test')?.result.result).toBe('valid');
      expect((await store.resultCache.recall(['a@x.test'], now, 3)).size).toBe(0);
      // The same account's newer verdict replaces its older one.
      await store.resultCache.remember([entry('a@x.test', 1, verdict('a@x.test', 'catch_all'), '2026-11-21T11:00:00.000Z', now + 5_000)]);
      expect((await store.resultCache.recall(['a@x.test'], now)).get('a@x.test')?.result.result).toBe('catch_all');
    });

    it('prunes what is stale, then the least fresh beyond the bound', async () => {
      await store.resultCache.remember(
        Array.from({ length: 6 }, (_, index) =>
          entry(`p${index}@x.test`, 1, verdict(`p${index}@x.test`), '2026-11-21T10:00:00.000Z', now - 2_000 + index * 1_000),
        ),
      );
      // p0 and p1 are stale (fresh until before now and at now), p2 (least fresh of the rest) goes beyond the bound of 3.
      expect(await store.resultCache.prune(now, 3)).toBe(3);
      const left = await store.resultCache.recall(
        Array.from({ length: 6 }, (_, index) => `p${index}@x.test`),
        now - 10_000,
      );
      expect([...left.keys()].sort()).toEqual(['p3@x.test', 'p4@x.test', 'p5@x.test']);
    });
  });

  describe('opening', () => {
    it('keeps the data of the store when it is opened again', async () => {
      const user = await addUser('keep@example.test', 7);
      const again = await open();
      expect(await again.accounts.findUserByEmail('KEEP@example.test')).toEqual(user);
    });
  });

  describe('users and credits', () => {
    it('finds users case-insensitively and refuses a second user with the same address', async () => {
      const user = await addUser('Mixed@Example.test', 0);
      expect((await store.accounts.findUserByEmail('mixed@example.test'))?.id).toBe(user.id);
      await expect(addUser('MIXED@example.test', 0)).rejects.toThrow(StoreError);
      expect((await store.accounts.listUsers()).map((each) => each.email)).toEqual(['Mixed@Example.test']);
    });

    it("never gives a deleted user's id to the next user, nor its session epoch", async () => {
      await addUser('first@example.test', 0);
      const newest = await addUser('newest@example.test', 0);
      expect(await store.accounts.deleteUser(newest.id)).toBe(true);
      const next = await addUser('next@example.test', 0);
      expect(next.id).toBeGreaterThan(newest.id);
      expect(next.sessionEpoch).toMatch(/^[0-9a-f]{32}$/);
      expect(next.sessionEpoch).not.toBe(newest.sessionEpoch);
    });

    it('sets a password with a new session epoch, ending the dashboard sessions of that user only', async () => {
      const user = await addUser('changes@example.test', 0);
      const other = await addUser('keeps@example.test', 0);
      const expiresAt = new Date(clock.getTime() + 3_600_000);
      await store.dashboard.createSession({ idHash: 'changes-session', userId: user.id, csrfSecret: 'csrf', expiresAt });
      await store.dashboard.createSession({ idHash: 'keeps-session', userId: other.id, csrfSecret: 'csrf', expiresAt });
      await store.accounts.setPassword(user.id, 'scrypt$new-hash');
      const changed = await store.accounts.findUserById(user.id);
      expect(changed).toMatchObject({ passwordHash: 'scrypt$new-hash', balance: 0 });
      expect(changed!.sessionEpoch).not.toBe(user.sessionEpoch);
      expect(await store.dashboard.findSession('changes-session')).toBeUndefined();
      expect(await store.dashboard.findSession('keeps-session')).toMatchObject({ userId: other.id });
      expect((await store.accounts.findUserById(other.id))!.sessionEpoch).toBe(other.sessionEpoch);
      await expect(store.accounts.setPassword(other.id + 100, null)).rejects.toMatchObject({ code: 'user_not_found' });
    });

    it('never lets a grant take a balance below zero', async () => {
      const user = await addUser('grant@example.test', 5);
      expect(await store.accounts.grantCredits(user.id, -5)).toBe(0);
      await expect(store.accounts.grantCredits(user.id, -1)).rejects.toThrow(expect.objectContaining({ code: 'negative_balance' }));
      await expect(store.accounts.grantCredits(9_999, 1)).rejects.toThrow(expect.objectContaining({ code: 'user_not_found' }));
      await expectLedgerAddsUp(user.id);
    });

    it('charges from several processes at once never overspend, and the ledger adds up', async () => {
      const user = await addUser('busy@example.test', 100);
      // Separate processes (the built store), so that the charges really interleave at the database:
      // one process's SQLite connections run each transaction whole, one after another.
      const chargers = [0, 1, 2, 3].map((worker) => startCharger(place.location, user.id, worker));
      await Promise.all(chargers.map((charger) => charger.ready));
      const outcomes = await Promise.all(chargers.map((charger) => charger.go()));
      const granted = outcomes.reduce((sum, each) => sum + each.granted, 0);
      const refused = outcomes.reduce((sum, each) => sum + each.refused, 0);
      expect(granted).toBeLessThanOrEqual(100);
      expect(refused).toBeGreaterThan(0);
      // Every process got some of the balance: they ran at the same time, not one after the other.
      for (const each of outcomes) expect(each.granted).toBeGreaterThan(0);
      expect((await store.accounts.findUserById(user.id))!.balance).toBe(100 - granted);
      expect((await store.accounts.findUserById(user.id))!.balance).toBeLessThan(3);
      await expectLedgerAddsUp(user.id);
    });

    it('refunds a charge with a ledger row, once however often asked', async () => {
      const user = await addUser('refund@example.test', 1);
      const charged = await store.accounts.charge(user.id, 1, 'verify');
      expect(charged).toEqual({ ok: true, balance: 0, chargeId: expect.any(Number) });
      expect(await store.accounts.charge(user.id, 1, 'verify')).toEqual({ ok: false, balance: 0, required: 1 });
      const charge = { id: charged.ok ? charged.chargeId : null, amount: 1 };
      expect(await store.accounts.refund(user.id, charge)).toEqual({ refunded: 1, balance: 1 });
      // Asked again (its COMMIT's answer was lost, so the caller cannot know it landed): nothing more.
      expect(await store.accounts.refund(user.id, charge)).toEqual({ refunded: 0, balance: 1 });
      expect((await store.accounts.ledger(user.id)).map((entry) => entry.reason)).toEqual(['grant', 'verify', 'refund']);
      await expectLedgerAddsUp(user.id);
    });

    it('refunds a charge asked on several connections at once exactly once', async () => {
      const user = await addUser('refund-race@example.test', 3);
      const charged = await store.accounts.charge(user.id, 1, 'verify');
      const charge = { id: charged.ok ? charged.chargeId : null, amount: 1 };
      const connections = [store, await open(), await open(), await open()];
      const refunds = await Promise.all(connections.flatMap((each) => [each, each].map((one) => one.accounts.refund(user.id, charge))));
      expect(refunds.reduce((sum, each) => sum + each.refunded, 0)).toBe(1);
      expect((await store.accounts.findUserById(user.id))!.balance).toBe(3);
      await expectLedgerAddsUp(user.id);
    });
  });

  describe('API tokens', () => {
    it('finds a live token by hash, lists it, and forgets it once revoked', async () => {
      const user = await addUser('tokens@example.test', 0);
      const other = await addUser('other@example.test', 0);
      const token = await store.tokens.createApiToken(user.id, 'laptop', 'hash-1');
      expect(await store.tokens.findApiTokenByHash('hash-1')).toMatchObject({ id: token.id, userId: user.id, name: 'laptop' });
      expect((await store.tokens.findApiTokenByHash('hash-1'))?.lastUsedAt).toBe(clock.toISOString());
      expect((await store.tokens.listApiTokens(user.id)).map((each) => each.id)).toEqual([token.id]);
      expect(await store.tokens.revokeApiToken(other.id, token.id)).toBe(false);
      expect(await store.tokens.revokeApiToken(user.id, token.id)).toBe(true);
      expect(await store.tokens.revokeApiToken(user.id, token.id)).toBe(false);
      expect(await store.tokens.findApiTokenByHash('hash-1')).toBeUndefined();
      expect(await store.tokens.listApiTokens(user.id)).toEqual([]);
    });

    it("rewrites a token's last use at most once a minute, so that authenticating is not a write per request", async () => {
      const user = await addUser('busy-token@example.test', 0);
      await store.tokens.createApiToken(user.id, 'ci', 'hash-2');
      const firstUse = clock.toISOString();
      expect((await store.tokens.findApiTokenByHash('hash-2'))?.lastUsedAt).toBe(firstUse);
      clock = new Date(clock.getTime() + 59_000);
      expect((await store.tokens.findApiTokenByHash('hash-2'))?.lastUsedAt).toBe(firstUse);
      expect((await store.tokens.listApiTokens(user.id))[0]?.lastUsedAt).toBe(firstUse);
      clock = new Date(clock.getTime() + 1_000);
      expect((await store.tokens.findApiTokenByHash('hash-2'))?.lastUsedAt).toBe(clock.toISOString());
      expect((await store.tokens.listApiTokens(user.id))[0]?.lastUsedAt).toBe(clock.toISOString());
    });

    it("keeps a token's scopes and expiry, gives a token made without them every scope for ever, and finds an expired one for the caller to refuse", async () => {
      const user = await addUser('scoped@example.test', 0);
      const expiresAt = new Date(clock.getTime() - 1_000).toISOString();
      // Scopes in any order are kept in the API's order.
      const scoped = await store.tokens.createApiToken(user.id, 'form', 'hash-s', { scopes: ['results', 'verify'], expiresAt });
      expect(scoped).toMatchObject({ scopes: ['verify', 'results'], expiresAt });
      const plain = await store.tokens.createApiToken(user.id, 'ci', 'hash-p');
      expect(plain).toMatchObject({ scopes: ['verify', 'bulk', 'results', 'account', 'evidence'], expiresAt: null });
      expect(await store.tokens.findApiTokenByHash('hash-s')).toMatchObject({ id: scoped.id, scopes: ['verify', 'results'], expiresAt });
      // Both made at the same clock time: listed in id order, which is random.
      const listed = (await store.tokens.listApiTokens(user.id)).sort((a, b) => a.name.localeCompare(b.name));
      expect(listed.map(({ name, scopes, expiresAt: at }) => ({ name, scopes, expiresAt: at }))).toEqual([
        { name: 'ci', scopes: ['verify', 'bulk', 'results', 'account', 'evidence'], expiresAt: null },
        { name: 'form', scopes: ['verify', 'results'], expiresAt },
      ]);
      // Another connection reads what this one wrote (the fixture closes it).
      const again = await open();
      expect(await again.tokens.findApiTokenByHash('hash-s')).toMatchObject({ scopes: ['verify', 'results'], expiresAt });
    });
  });

  describe('bulk jobs', () => {
    it('charges, creates the job and its items in one go, and refuses a short balance without writing anything', async () => {
      const user = await addUser('jobs@example.test', 3);
      expect(await store.jobs.createJob(user.id, ['a@x.test', 'b@x.test', 'c@x.test', 'd@x.test'])).toEqual({ ok: false, balance: 3, required: 4 });
      expect(await store.jobs.listJobs(user.id, 10)).toEqual([]);
      expect(await store.work.claimWork({ maxItems: 10, leaseMs: 60_000 })).toBeUndefined();
      expect(await store.accounts.ledger(user.id)).toHaveLength(1);

      const created = await store.jobs.createJob(user.id, ['a@x.test', 'b@x.test']);
      if (!created.ok) throw new Error('expected a job');
      expect(created.jobId).toMatch(/^[0-9a-f-]{36}$/);
      expect(await store.jobs.getJob(user.id, created.jobId)).toEqual({
        id: created.jobId,
        userId: user.id,
        name: null,
        status: 'processing',
        total: 2,
        processed: 0,
        waiting: 0,
        nextAttemptAt: null,
        sandbox: false,
      });
      // Every item is there, in list order, waiting for a result: one claim hands out both, then nothing is left.
      const chunk = (await store.work.claimWork({ maxItems: 10, leaseMs: 60_000 }))!;
      expect(chunk).toMatchObject({ jobId: created.jobId, userId: user.id });
      expect(chunk.items.map((item) => [item.position, item.email])).toEqual([
        [0, 'a@x.test'],
        [1, 'b@x.test'],
      ]);
      expect(await store.work.claimWork({ maxItems: 10, leaseMs: 60_000 })).toBeUndefined();
      expect((await store.accounts.findUserById(user.id))!.balance).toBe(1);
      expect((await store.accounts.ledger(user.id)).at(-1)).toMatchObject({ delta: -2, reason: 'bulk', jobId: created.jobId });
      // A job may be given a name, kept as given.
      await store.accounts.grantCredits(user.id, 1);
      const named = await store.jobs.createJob(user.id, ['c@x.test'], undefined, { name: 'contacts.csv' });
      if (!named.ok) throw new Error('expected a job');
      expect((await store.jobs.getJob(user.id, named.jobId))?.name).toBe('contacts.csv');
    });

    it('rolls the charge back when writing the items fails half-way', async () => {
      const user = await addUser('atomic@example.test', 10);
      await place.failItemInserts('boom@x.test');
      await expect(store.jobs.createJob(user.id, ['a@x.test', 'boom@x.test', 'c@x.test'], { key: 'k', route: 'bulk', requestHash: 'h' })).rejects.toThrow(
        /disk trouble/,
      );
      expect((await store.accounts.findUserById(user.id))!.balance).toBe(10);
      expect(await store.jobs.listJobs(user.id, 10)).toEqual([]);
      expect(await store.work.claimWork({ maxItems: 10, leaseMs: 60_000 })).toBeUndefined();
      await expectLedgerAddsUp(user.id);
      // The key was not recorded either: it is free for another request.
      expect(await store.jobs.createJob(user.id, ['a@x.test'], { key: 'k', route: 'bulk', requestHash: 'other' })).toMatchObject({ ok: true, replayed: false });
    });

    it('shows a job only to its owner', async () => {
      const owner = await addUser('owner@example.test', 5);
      const stranger = await addUser('stranger@example.test', 5);
      const created = await store.jobs.createJob(owner.id, ['a@x.test']);
      if (!created.ok) throw new Error('expected a job');
      expect(await store.jobs.getJob(stranger.id, created.jobId)).toBeUndefined();
      expect(await store.jobs.getJob(owner.id, 'no-such-job')).toBeUndefined();
    });

    it('reads stored results in pages after a position, in job order, only of the given verdicts', async () => {
      const user = await addUser('pages@example.test', 10);
      const created = await store.jobs.createJob(user.id, ['a@x.test', 'b@x.test', 'c@x.test', 'd@x.test', 'e@x.test']);
      if (!created.ok) throw new Error('expected a job');
      const { jobId } = created;
      const chunk = (await store.work.claimWork({ maxItems: 10, leaseMs: 60_000 }))!;
      // Results for all but position 2, the verdicts taking turns.
      const verdicts = ['valid', 'invalid', 'valid', 'catch_all', 'valid'] as const;
      await store.work.saveResults(
        chunk.items
          .filter((item) => item.position !== 2)
          .map((item) => ({ lease: chunk.lease, jobId, position: item.position, result: { ...resultFor(item.email), result: verdicts[item.position]! } })),
      );
      const page = async (after: number, limit: number, only?: Array<(typeof verdicts)[number]>) =>
        (await store.jobs.readResults(jobId, { after, limit, verdicts: only })).map((row) => [
          row.position,
          (JSON.parse(row.json) as VerificationResult).email,
        ]);
      expect(await page(-1, 2)).toEqual([
        [0, 'a@x.test'],
        [1, 'b@x.test'],
      ]);
      expect(await page(1, 2)).toEqual([
        [3, 'd@x.test'],
        [4, 'e@x.test'],
      ]);
      expect(await page(4, 2)).toEqual([]);
      expect(await page(-1, 10, ['valid', 'catch_all'])).toEqual([
        [0, 'a@x.test'],
        [3, 'd@x.test'],
        [4, 'e@x.test'],
      ]);
      expect(await page(0, 1, ['valid'])).toEqual([[4, 'e@x.test']]);
      // The stored text is the interface's object, as sent.
      const [first] = await store.jobs.readResults(jobId, { after: -1, limit: 1 });
      expect(JSON.parse(first!.json)).toEqual({ ...resultFor('a@x.test'), result: 'valid' });
      // The counts per verdict of what is stored, position 2 (no result yet) counted nowhere.
      const counts = Object.fromEntries((await store.jobs.verdictCounts(jobId)).map((each) => [each.verdict, each.count]));
      expect(counts).toEqual({ valid: 2, invalid: 1, catch_all: 1 });
    });

    it('keeps exactly one result per item, counts it once, and completes when every item has one', async () => {
      const user = await addUser('results@example.test', 5);
      const created = await store.jobs.createJob(user.id, ['a@x.test', 'b@x.test', 'c@x.test']);
      if (!created.ok) throw new Error('expected a job');
      const { jobId } = created;
      let { lease } = (await store.work.claimWork({ maxItems: 10, leaseMs: 60_000 }))!;
      const save = (position: number, email: string, reason?: string) => ({ lease, jobId, position, result: resultFor(email, reason) });
      const jobStatuses = async () => (await store.jobs.listJobs(user.id, 10)).map((job) => [job.id, job.status]);

      await store.work.saveResults([save(1, 'b@x.test', 'first')]);
      // The same item verified again under its lease: the first result stays, nothing is counted twice.
      await store.work.saveResults([save(1, 'b@x.test', 'second'), save(0, 'a@x.test')]);
      expect(await store.jobs.getJob(user.id, jobId)).toMatchObject({ status: 'processing', processed: 2 });
      // Only position 2 still lacks a result: given back, it is all a new claim hands out.
      await store.work.releaseLeases([lease]);
      const rest = (await store.work.claimWork({ maxItems: 10, leaseMs: 60_000 }))!;
      expect(rest.jobId).toBe(jobId);
      expect(rest.items.map((item) => item.position)).toEqual([2]);
      expect(await jobStatuses()).toEqual([[jobId, 'processing']]);
      lease = rest.lease;

      await store.work.saveResults([save(2, 'c@x.test')]);
      const { job, results } = (await store.jobs.getJobWithResults(user.id, jobId))!;
      expect(job).toMatchObject({ status: 'completed', processed: 3, total: 3 });
      expect(results.map((result) => [result.email, result.reason])).toEqual([
        ['a@x.test', 'test'],
        ['b@x.test', 'first'],
        ['c@x.test', 'test'],
      ]);
      expect(await jobStatuses()).toEqual([[jobId, 'completed']]);
      expect(await store.work.claimWork({ maxItems: 10, leaseMs: 60_000 })).toBeUndefined();
      await store.work.saveResults([save(2, 'c@x.test', 'late')]);
      expect(await store.jobs.getJob(user.id, jobId)).toMatchObject({ status: 'completed', processed: 3 });
    });

    it("reads the last lines of a ledger from its end, a job's refunds that run over a page joined whole", async () => {
      const user = await addUser('recent@example.test', 200);
      for (let grant = 0; grant < 150; grant += 1) await store.accounts.grantCredits(user.id, 1);
      // 120 refund rows of one job, one batch each (port25_blocked is given back as it is written).
      const emails = Array.from({ length: 120 }, (_, index) => `r${index}@x.test`);
      const created = await store.jobs.createJob(user.id, emails);
      if (!created.ok) throw new Error('expected a job');
      const chunk = (await store.work.claimWork({ maxItems: 120, leaseMs: 60_000 }))!;
      for (const item of chunk.items) {
        const result: VerificationResult = { ...resultFor(item.email), result: 'unknown', reasonCode: 'port25_blocked' };
        await store.work.saveResults([{ lease: chunk.lease, jobId: created.jobId, position: item.position, result }]);
      }
      await store.accounts.grantCredits(user.id, 2);
      await store.accounts.grantCredits(user.id, 3);
      const whole = await store.accounts.ledger(user.id);
      expect(whole.at(-3)).toMatchObject({ reason: 'refund', delta: 120, jobId: created.jobId });
      for (const last of [1, 2, 3, 4, 10, 500]) expect(await store.accounts.ledger(user.id, last)).toEqual(whole.slice(-last));
    });

    it('with refundUnknown gives back the unknowns of a job once, in the batch that completes it, beside the verifier-condition refunds', async () => {
      const user = await addUser('unknowns@example.test', 10);
      const created = await store.jobs.createJob(user.id, ['a@x.test', 'b@x.test', 'c@x.test', 'd@x.test', 'e@x.test']);
      if (!created.ok) throw new Error('expected a job');
      const { jobId } = created;
      const chunk = (await store.work.claimWork({ maxItems: 10, leaseMs: 60_000 }))!;
      const unknown = (email: string, reasonCode: VerificationResult['reasonCode']): VerificationResult => ({
        ...resultFor(email),
        result: 'unknown',
        reasonCode,
      });
      const save = (position: number, result: VerificationResult) => ({ lease: chunk.lease, jobId, position, result });
      const policy = { refundUnknown: true };
      // a valid, b greylisted, c port25_blocked (refunded as written, whatever the policy), d and e later.
      // Each batch says what it gave back (the refund metric counts it).
      const first = await store.work.saveResults(
        [save(0, resultFor('a@x.test')), save(1, unknown('b@x.test', 'greylisted')), save(2, unknown('c@x.test', 'port25_blocked'))],
        policy,
      );
      expect(first).toEqual({ completedJobs: 0, refunded: 1 });
      expect((await store.accounts.findUserById(user.id))!.balance).toBe(5 + 1);
      expect(await store.work.saveResults([save(3, unknown('d@x.test', 'dns_failure')), save(4, resultFor('e@x.test'))], policy)).toEqual({
        completedJobs: 1,
        refunded: 2,
      });
      // Completed: b and d given back in one row naming the job (c was given back already).
      expect((await store.accounts.findUserById(user.id))!.balance).toBe(5 + 1 + 2);
      // Written a batch at a time (+1, then +2), read as one line for the job.
      const refunds = (await store.accounts.ledger(user.id)).filter((entry) => entry.reason === 'refund');
      expect(refunds.map((entry) => [entry.delta, entry.jobId, entry.balanceAfter])).toEqual([[3, jobId, 8]]);
      // The same results again (a runner that lost its lease): nothing is written, nothing refunded.
      expect(await store.work.saveResults([save(3, unknown('d@x.test', 'dns_failure'))], policy)).toEqual({ completedJobs: 0, refunded: 0 });
      expect((await store.accounts.findUserById(user.id))!.balance).toBe(8);
      await expectLedgerAddsUp(user.id);
    });

    it('without refundUnknown charges unknowns like any result', async () => {
      const user = await addUser('charged@example.test', 2);
      const created = await store.jobs.createJob(user.id, ['a@x.test', 'b@x.test']);
      if (!created.ok) throw new Error('expected a job');
      const chunk = (await store.work.claimWork({ maxItems: 10, leaseMs: 60_000 }))!;
      await store.work.saveResults(
        chunk.items.map((item) => ({
          lease: chunk.lease,
          jobId: created.jobId,
          position: item.position,
          result: { ...resultFor(item.email), result: 'unknown', reasonCode: 'greylisted' },
        })),
      );
      expect(await store.jobs.getJob(user.id, created.jobId)).toMatchObject({ status: 'completed' });
      expect((await store.accounts.findUserById(user.id))!.balance).toBe(0);
    });

    it("hands a job's `fresh` to the chunks claimed from it", async () => {
      const user = await addUser('fresh@example.test', 2);
      await store.jobs.createJob(user.id, ['a@x.test'], undefined, { fresh: true });
      expect(await store.work.claimWork({ maxItems: 10, leaseMs: 60_000 })).toMatchObject({ fresh: true });
      await store.jobs.createJob(user.id, ['b@y.test']);
      expect(await store.work.claimWork({ maxItems: 10, leaseMs: 60_000 })).toMatchObject({ fresh: false });
    });

    it('stores a 50,000-address job with every item in place', async () => {
      const user = await addUser('big@example.test', 50_000);
      const emails = Array.from({ length: 50_000 }, (_, index) => `user${index}@domain${index % 200}.test`);
      const created = await store.jobs.createJob(user.id, emails);
      if (!created.ok) throw new Error('expected a job');
      expect(created.queued).toBe(50_000);
      // Claimed until nothing is left (a chunk is one domain's items), every item turns up once, at its position.
      const pending = [];
      for (
        let chunk = await store.work.claimWork({ maxItems: 100_000, leaseMs: 60_000 });
        chunk;
        chunk = await store.work.claimWork({ maxItems: 100_000, leaseMs: 60_000 })
      ) {
        pending.push(...chunk.items);
      }
      pending.sort((a, b) => a.position - b.position);
      expect(pending).toHaveLength(50_000);
      expect(pending.every((item, index) => item.jobId === created.jobId && item.position === index && item.email === emails[index])).toBe(true);
      expect(pending[49_999]).toEqual({ jobId: created.jobId, position: 49_999, email: 'user49999@domain199.test', attempts: 0, firstAnsweredAt: null });
      expect((await store.accounts.findUserById(user.id))!.balance).toBe(0);
    });
  });

  describe('idempotency', () => {
    const verifyKey = { key: 'verify-1', route: 'POST /v1/verify', requestHash: 'hash-a' };

    it('answers a replayed job submission with the first job and charges once; another body conflicts', async () => {
      const user = await addUser('idem@example.test', 10);
      const key = { key: 'key-1', route: 'POST /v1/bulk-verify', requestHash: 'hash-a' };
      const first = await store.jobs.createJob(user.id, ['a@x.test', 'b@x.test'], key);
      expect(first).toMatchObject({ ok: true, queued: 2, replayed: false });
      expect(await store.jobs.createJob(user.id, ['a@x.test', 'b@x.test'], key)).toEqual({ ...first, replayed: true });
      expect((await store.accounts.findUserById(user.id))!.balance).toBe(8);
      await expect(store.jobs.createJob(user.id, ['c@x.test'], { ...key, requestHash: 'hash-b' })).rejects.toThrow(
        expect.objectContaining({ code: 'idempotency_conflict' }),
      );
      expect((await store.accounts.findUserById(user.id))!.balance).toBe(8);
    });

    it('charges a keyed request once: the first claims the key, repeats see it running, then its recorded response', async () => {
      const user = await addUser('claim@example.test', 5);
      expect(await store.accounts.chargeWithKey(user.id, 1, 'verify', verifyKey)).toEqual({ kind: 'charged', balance: 4, chargeId: expect.any(Number) });
      expect(await store.accounts.chargeWithKey(user.id, 1, 'verify', verifyKey)).toEqual({ kind: 'running' });
      await expect(store.accounts.chargeWithKey(user.id, 1, 'verify', { ...verifyKey, requestHash: 'hash-b' })).rejects.toThrow(
        expect.objectContaining({ code: 'idempotency_conflict' }),
      );
      await store.idempotency.saveIdempotency({ userId: user.id, ...verifyKey, statusCode: 200, body: '{"result":"valid"}' });
      expect(await store.accounts.chargeWithKey(user.id, 1, 'verify', verifyKey)).toMatchObject({
        kind: 'recorded',
        record: { statusCode: 200, body: '{"result":"valid"}' },
      });
      expect((await store.accounts.findUserById(user.id))!.balance).toBe(4);
      expect((await store.accounts.ledger(user.id)).filter((entry) => entry.reason === 'verify')).toHaveLength(1);
    });

    it('claims nothing on a short balance, and frees the key when the charge is refunded', async () => {
      const user = await addUser('release@example.test', 0);
      expect(await store.accounts.chargeWithKey(user.id, 1, 'verify', verifyKey)).toEqual({ kind: 'short', balance: 0, required: 1 });
      await store.accounts.grantCredits(user.id, 1);
      const charged = await store.accounts.chargeWithKey(user.id, 1, 'verify', verifyKey);
      expect(charged).toEqual({ kind: 'charged', balance: 0, chargeId: expect.any(Number) });
      // The work failed: the token comes back and a retry with the key runs (and pays) afresh.
      const charge = { id: charged.kind === 'charged' ? charged.chargeId : null, amount: 1 };
      expect(await store.accounts.refund(user.id, charge, { key: verifyKey })).toEqual({ refunded: 1, balance: 1 });
      expect(await store.accounts.chargeWithKey(user.id, 1, 'verify', verifyKey)).toEqual({ kind: 'charged', balance: 0, chargeId: expect.any(Number) });
      await expectLedgerAddsUp(user.id);
    });

    it('records the response of a keyed request with its refund: a retry replays it and never runs free', async () => {
      const user = await addUser('refund-key@example.test', 5);
      const charged = await store.accounts.chargeWithKey(user.id, 1, 'verify', verifyKey);
      const charge = { id: charged.kind === 'charged' ? charged.chargeId : null, amount: 1 };
      const response = { statusCode: 200, body: '{"result":"unknown"}' };
      expect(await store.accounts.refund(user.id, charge, { key: verifyKey, response })).toEqual({ refunded: 1, balance: 5 });
      // The refund asked again after a lost answer changes nothing, and leaves the response.
      expect(await store.accounts.refund(user.id, charge, { key: verifyKey, response })).toEqual({ refunded: 0, balance: 5 });
      expect(await store.accounts.chargeWithKey(user.id, 1, 'verify', verifyKey)).toMatchObject({ kind: 'recorded', record: response });
      // Long after a claim would count as abandoned, the retry still finds the response, not a charge to run on.
      clock = new Date(clock.getTime() + IDEMPOTENCY_CLAIM_TTL_MS + 1);
      expect(await store.accounts.chargeWithKey(user.id, 1, 'verify', verifyKey)).toMatchObject({ kind: 'recorded', record: response });
      expect((await store.accounts.findUserById(user.id))!.balance).toBe(5);
      expect((await store.accounts.ledger(user.id)).map((entry) => entry.reason)).toEqual(['grant', 'verify', 'refund']);
      await expectLedgerAddsUp(user.id);
    });

    it('of identical keyed requests on several connections at once, charges and runs exactly one', async () => {
      const user = await addUser('race-key@example.test', 10);
      const connections = [store, await open(), await open(), await open()];
      const charges = await Promise.all(connections.flatMap((each) => [each, each].map((one) => one.accounts.chargeWithKey(user.id, 1, 'verify', verifyKey))));
      expect(charges.filter((outcome) => outcome.kind === 'charged')).toHaveLength(1);
      expect(charges.filter((outcome) => outcome.kind === 'running')).toHaveLength(charges.length - 1);
      const bulkKey = { key: 'race-bulk', route: 'POST /v1/bulk-verify', requestHash: 'hash-a' };
      const jobs = await Promise.all(connections.map((each) => each.jobs.createJob(user.id, ['a@x.test', 'b@x.test'], bulkKey)));
      expect(new Set(jobs.map((job) => job.ok && job.jobId)).size).toBe(1);
      expect(jobs.filter((job) => job.ok && !job.replayed)).toHaveLength(1);
      expect((await store.accounts.findUserById(user.id))!.balance).toBe(10 - 1 - 2);
      await expectLedgerAddsUp(user.id);
    });

    it('takes over the claim of a run that died, without charging again', async () => {
      const user = await addUser('takeover@example.test', 5);
      const first = await store.accounts.chargeWithKey(user.id, 1, 'verify', verifyKey);
      expect(first).toEqual({ kind: 'charged', balance: 4, chargeId: expect.any(Number) });
      clock = new Date(clock.getTime() + IDEMPOTENCY_CLAIM_TTL_MS - 1);
      expect(await store.accounts.chargeWithKey(user.id, 1, 'verify', verifyKey)).toEqual({ kind: 'running' });
      clock = new Date(clock.getTime() + 1);
      // The taker runs on the dead run's charge: its refund, if any, names that charge.
      expect(await store.accounts.chargeWithKey(user.id, 1, 'verify', verifyKey)).toEqual(first);
      // The new claim is the taker's: a third request sees it running.
      expect(await store.accounts.chargeWithKey(user.id, 1, 'verify', verifyKey)).toEqual({ kind: 'running' });
      expect((await store.accounts.ledger(user.id)).filter((entry) => entry.reason === 'verify')).toHaveLength(1);
    });

    it('keeps records per user and route, and ignores and prunes them after 24 hours', async () => {
      const user = await addUser('ttl@example.test', 0);
      const other = await addUser('ttl2@example.test', 0);
      await store.idempotency.saveIdempotency({ userId: user.id, ...verifyKey, statusCode: 200, body: '{"a":1}' });
      expect(await store.accounts.chargeWithKey(user.id, 1, 'verify', verifyKey)).toMatchObject({ kind: 'recorded', record: { body: '{"a":1}' } });
      // Not recorded for them, so each would be a new request, charged (and refused: no credits).
      expect((await store.accounts.chargeWithKey(other.id, 1, 'verify', verifyKey)).kind).toBe('short');
      expect((await store.accounts.chargeWithKey(user.id, 1, 'verify', { ...verifyKey, route: 'POST /v1/bulk-verify' })).kind).toBe('short');

      clock = new Date(clock.getTime() + IDEMPOTENCY_TTL_MS + 1);
      expect((await store.accounts.chargeWithKey(user.id, 1, 'verify', verifyKey)).kind).toBe('short');
      await store.idempotency.saveIdempotency({ userId: other.id, key: 'x', route: 'POST /v1/verify', requestHash: 'h', statusCode: 200, body: '{}' });
      expect(await place.query('SELECT user_id FROM idempotency')).toEqual([{ user_id: other.id }]);
    });
  });

  describe('rate windows', () => {
    it('adds reserved requests per user and window, and answers the running total', async () => {
      const user = await addUser('rate@example.test', 0);
      const other = await addUser('rate2@example.test', 0);
      expect([
        await store.limits.reserveRequests(user.id, 100, 1),
        await store.limits.reserveRequests(user.id, 100, 5),
        await store.limits.reserveRequests(user.id, 100, 1),
      ]).toEqual([1, 6, 7]);
      expect(await store.limits.reserveRequests(other.id, 100, 3)).toBe(3);
      expect(await store.limits.reserveRequests(user.id, 101, 2)).toBe(2);
    });

    it('counts login attempts per key and window (up, back down, or only read), dropping windows past the longest', async () => {
      const add = (key: string, windowStart: number, delta: number) => store.limits.addToLoginCount(key, windowStart, delta);
      expect([await add('email:a@example.test', 60, 1), await add('email:a@example.test', 60, 1), await add('email:a@example.test', 60, 0)]).toEqual([1, 2, 2]);
      expect(await add('email:a@example.test', 60, -1)).toBe(1);
      expect(await add('ip:127.0.0.1', 60, 1)).toBe(1);
      expect(await add('never@example.test', 60, 0)).toBe(0);
      // Reading writes nothing: no row is left for an address that was only looked up.
      expect(await place.query("SELECT key FROM login_windows WHERE key = 'never@example.test'")).toEqual([]);
      expect(await add('email:a@example.test', 120, 1)).toBe(1);
      const windows = () => place.query('SELECT DISTINCT window_start FROM login_windows ORDER BY 1');
      // A longer window (an account's) outlives the start of shorter ones...
      expect(await windows()).toEqual([{ window_start: 60 }, { window_start: 120 }]);
      // ...until it is older than the longest window any counter uses.
      expect(await add('email:a@example.test', 60 + LOGIN_WINDOW_MAX_SECONDS + 60, 1)).toBe(1);
      expect(await windows()).toEqual([{ window_start: 120 }, { window_start: 60 + LOGIN_WINDOW_MAX_SECONDS + 60 }]);
    });
  });

  describe('data version', () => {
    it("moves when another connection changes a rate limit or revokes a token, not for this store's own new user", async () => {
      const before = await store.install.dataVersion();
      const user = await addUser('mine@example.test', 1);
      expect(await store.install.dataVersion()).toBe(before);
      const elsewhere = await open();
      await elsewhere.accounts.setRateLimit(user.id, 5, 1);
      // PostgreSQL's notification arrives on its own connection, a moment after the commit.
      await expect.poll(() => store.install.dataVersion()).not.toBe(before);
      const moved = await store.install.dataVersion();
      const token = await store.tokens.createApiToken(user.id, 'cli', 'hash-dv');
      await elsewhere.tokens.revokeApiToken(user.id, token.id);
      await expect.poll(() => store.install.dataVersion()).not.toBe(moved);
      // A password change ends the user's login JWTs, which every instance checks against its cache.
      const revoked = await store.install.dataVersion();
      await elsewhere.accounts.setPassword(user.id, null);
      await expect.poll(() => store.install.dataVersion()).not.toBe(revoked);
    });
  });

  describe('signing secret', () => {
    it('is made once and is the same for every connection', async () => {
      const secret = await store.install.signingSecret();
      expect(secret.length).toBeGreaterThanOrEqual(32);
      expect(await (await open()).install.signingSecret()).toEqual(secret);
      expect(await store.install.signingSecret()).toEqual(secret);
    });
  });

  // Lease-claimed work (docs/architecture.md "The service inside"): who gets which items, for how long, and whose results count.
  const LEASE_MS = 60_000;
  const later = (ms: number) => (clock = new Date(clock.getTime() + ms));
  let owners = 0;
  /** A job (for a new user unless `owner` is given); the clock moves on so that "oldest job" is defined. */
  async function submitJob(emails: string[], owner?: number): Promise<{ userId: number; jobId: string }> {
    const userId = owner ?? (await addUser(`owner${++owners}@example.test`, 1_000_000)).id;
    const created = await store.jobs.createJob(userId, emails);
    if (!created.ok) throw new Error('the job was not created');
    later(1);
    return { userId, jobId: created.jobId };
  }
  const claim = (maxItems = 100, skipDomains?: string[]) => store.work.claimWork({ maxItems, leaseMs: LEASE_MS, skipDomains });
  const emailsOf = (chunk: WorkChunk | undefined) => chunk?.items.map((item) => item.email);
  const answers = (chunk: WorkChunk, reason: string) =>
    chunk.items.map((item) => ({ lease: chunk.lease, jobId: chunk.jobId, position: item.position, result: resultFor(item.email, reason) }));
  const reasons = async (userId: number, jobId: string) => (await store.jobs.getJobWithResults(userId, jobId))!.results.map((result) => result.reason);

  describe('claiming work', () => {
    it('hands out one domain of one job per chunk, in job order within it, never the same item twice', async () => {
      const { jobId } = await submitJob(['a1@a.test', 'b1@b.test', 'a2@A.TEST', 'b2@b.test', 'a3@a.test', 'broken']);
      const first = (await claim(2))!;
      expect(first).toMatchObject({ jobId, domain: 'a.test' });
      expect(first.lease).toMatch(/^[0-9a-f-]{36}$/);
      expect(first.items).toEqual([
        { jobId, position: 0, email: 'a1@a.test', attempts: 0, firstAnsweredAt: null },
        { jobId, position: 2, email: 'a2@A.TEST', attempts: 0, firstAnsweredAt: null },
      ]);
      // The rest of a.test, then b.test, then the address without a domain; then nothing is left.
      expect(emailsOf(await claim())).toEqual(['a3@a.test']);
      expect(emailsOf(await claim())).toEqual(['b1@b.test', 'b2@b.test']);
      expect(emailsOf(await claim())).toEqual(['broken']);
      expect(await claim()).toBeUndefined();
    });

    it('leaves out the domains the runner is busy with while others have claimable items', async () => {
      await submitJob(['a1@a.test', 'b1@b.test', 'c1@c.test']);
      expect((await claim(100, ['a.test', 'b.test']))?.domain).toBe('c.test');
      expect(await claim(100, ['a.test', 'b.test'])).toBeUndefined();
      expect((await claim(100, ['b.test']))?.domain).toBe('a.test');
    });

    it('leaves out the users the runner is full of', async () => {
      const full = await submitJob(['a1@a.test', 'a2@a2.test']);
      const newcomer = await submitJob(['b1@b.test']);
      const skipUsers = [full.userId];
      expect(await store.work.claimWork({ maxItems: 100, leaseMs: LEASE_MS, skipUsers })).toMatchObject({ userId: newcomer.userId, domain: 'b.test' });
      expect(await store.work.claimWork({ maxItems: 100, leaseMs: LEASE_MS, skipUsers })).toBeUndefined();
      expect(await store.work.claimWork({ maxItems: 100, leaseMs: LEASE_MS })).toMatchObject({ userId: full.userId, domain: 'a.test' });
    });

    it("claims only the jobs it is given, when given some (a local run's own)", async () => {
      const theirs = await submitJob(['a1@a.test']);
      const mine = await submitJob(['b1@b.test', 'c1@c.test']);
      const onlyJobs = [mine.jobId];
      expect(await store.work.claimWork({ maxItems: 100, leaseMs: LEASE_MS, onlyJobs })).toMatchObject({ jobId: mine.jobId, domain: 'b.test' });
      expect(await store.work.claimWork({ maxItems: 100, leaseMs: LEASE_MS, onlyJobs })).toMatchObject({ jobId: mine.jobId, domain: 'c.test' });
      expect(await store.work.claimWork({ maxItems: 100, leaseMs: LEASE_MS, onlyJobs })).toBeUndefined();
      expect(await store.work.claimWork({ maxItems: 100, leaseMs: LEASE_MS })).toMatchObject({ jobId: theirs.jobId });
    });

    it('of claims from several connections at once, hands out every item exactly once', async () => {
      // One domain, so that every claim reaches for the same rows: they must skip what another is taking.
      const emails = Array.from({ length: 600 }, (_, index) => `a${index}@a.test`);
      const { jobId } = await submitJob(emails);
      const connections = [store, await open(), await open()];
      const claimed: string[] = [];
      const claimOn = async (on: Store): Promise<void> => {
        for (;;) {
          const chunk = await on.work.claimWork({ maxItems: 50, leaseMs: LEASE_MS });
          if (!chunk) return;
          claimed.push(...chunk.items.map((item) => `${item.jobId}:${item.position}`));
        }
      };
      await Promise.all(connections.flatMap((on) => [claimOn(on), claimOn(on)]));
      expect(claimed).toHaveLength(emails.length);
      expect(new Set(claimed)).toEqual(new Set(emails.map((_, position) => `${jobId}:${position}`)));
    });

    it("gives an expired lease's items to the next claim; the late results of the old lease are ignored", async () => {
      const { userId, jobId } = await submitJob(['a1@a.test', 'a2@a.test']);
      const lost = (await claim())!;
      later(LEASE_MS - 1);
      expect(await claim()).toBeUndefined();
      later(1);
      const taken = (await claim())!;
      expect(taken.items).toEqual(lost.items);
      expect(taken.lease).not.toBe(lost.lease);

      await store.work.saveResults(answers(lost, 'from the lost lease'));
      expect(await store.jobs.getJob(userId, jobId)).toMatchObject({ processed: 0, status: 'processing' });
      await store.work.saveResults(answers(taken, 'from the new lease'));
      expect(await store.jobs.getJob(userId, jobId)).toMatchObject({ processed: 2, status: 'completed' });
      expect(await reasons(userId, jobId)).toEqual(['from the new lease', 'from the new lease']);
    });

    it('keeps a temporary answer as the result so far, claims it again only once due, and counts it when it settles', async () => {
      const { userId, jobId } = await submitJob(['grey@a.test', 'fine@a.test']);
      const first = (await claim())!;
      const dueAt = clock.getTime() + 5_000;
      const [grey, fine] = answers(first, 'greylisted');
      await store.work.saveResults([{ ...grey!, dueAt, result: { ...grey!.result, nextAttemptAt: new Date(dueAt).toISOString() } }, fine!]);
      // Waiting: readable, not processed, not claimable, and the job goes on.
      expect(await store.jobs.getJob(userId, jobId)).toMatchObject({
        processed: 1,
        status: 'processing',
        waiting: 1,
        nextAttemptAt: new Date(dueAt).toISOString(),
      });
      const page = await store.jobs.readResults(jobId, { after: -1, limit: 10 });
      expect(page.map((row) => [row.position, Boolean(row.waiting)])).toEqual([
        [0, true],
        [1, false],
      ]);
      expect(JSON.parse(page[0]!.json)).toMatchObject({ email: 'grey@a.test', nextAttemptAt: new Date(dueAt).toISOString() });
      expect(await store.work.depth()).toMatchObject({ waiting: 1 });
      later(4_999);
      expect(await store.work.wakeDue()).toBe(0);
      expect(await claim()).toBeUndefined();
      later(1);
      expect(await store.work.wakeDue()).toBe(1);
      // Due: claimed like any item, once, with its tries so far.
      const again = (await claim())!;
      expect(again.items).toEqual([{ jobId, position: 0, email: 'grey@a.test', attempts: 1, firstAnsweredAt: dueAt - 5_000 }]);
      expect(await claim()).toBeUndefined();
      await store.work.saveResults(answers(again, 'accepted at last'));
      expect(await store.jobs.getJob(userId, jobId)).toMatchObject({ processed: 2, status: 'completed', waiting: 0, nextAttemptAt: null });
      expect(await reasons(userId, jobId)).toEqual(['accepted at last', 'greylisted']);
    });

    it('keeps renewed leases past their first expiry, and only those', async () => {
      await submitJob(['a1@a.test', 'b1@b.test']);
      const renewed = (await claim())!;
      const expiring = (await claim())!;
      later(LEASE_MS / 2);
      await store.work.renewLeases([renewed.lease], LEASE_MS);
      later(LEASE_MS / 2);
      expect((await claim())?.items).toEqual(expiring.items);
      expect(await claim()).toBeUndefined();
      later(LEASE_MS / 2);
      expect((await claim())?.items).toEqual(renewed.items);
    });

    it('does not renew a lease another runner has taken over', async () => {
      const { userId, jobId } = await submitJob(['a1@a.test']);
      const lost = (await claim())!;
      later(LEASE_MS);
      const taken = (await claim())!;
      await store.work.renewLeases([lost.lease], LEASE_MS);
      await store.work.saveResults(answers(lost, 'lost'));
      await store.work.saveResults(answers(taken, 'taken'));
      expect(await reasons(userId, jobId)).toEqual(['taken']);
    });

    it('makes released items claimable at once, except those with a result', async () => {
      const { userId, jobId } = await submitJob(['a1@a.test', 'a2@a.test', 'a3@a.test']);
      const chunk = (await claim())!;
      await store.work.saveResults(answers(chunk, 'done').slice(0, 1));
      await store.work.releaseLeases([chunk.lease]);
      expect(emailsOf(await claim())).toEqual(['a2@a.test', 'a3@a.test']);
      // A result arriving after the release does not count: the items are someone else's now.
      await store.work.saveResults(answers(chunk, 'after release'));
      expect(await reasons(userId, jobId)).toEqual(['done']);
    });

    it('writes a batch spanning several jobs in one go, each job counting its own', async () => {
      const one = await submitJob(['a1@a.test', 'a2@a.test']);
      const two = await submitJob(['x1@x.test']);
      const chunks = [(await claim())!, (await claim())!];
      await store.work.saveResults(chunks.flatMap((chunk) => answers(chunk, 'ok')));
      expect(await store.jobs.getJob(one.userId, one.jobId)).toMatchObject({ processed: 2, status: 'completed' });
      expect(await store.jobs.getJob(two.userId, two.jobId)).toMatchObject({ processed: 1, status: 'completed' });
    });
  });

  describe('fair scheduling', () => {
    it("gives the next chunk to the user with the fewest items in flight, then to that user's oldest job", async () => {
      const big = await submitJob(Array.from({ length: 30 }, (_, index) => `u${index}@d${index % 3}.test`));
      const bigAgain = await submitJob(['z@z.test'], big.userId);
      expect((await claim())?.jobId).toBe(big.jobId);
      const small = await submitJob(['s1@s.test', 's2@t.test']);
      // The big user has 10 items in flight, the newcomer none: the newcomer goes first, twice.
      expect((await claim())?.jobId).toBe(small.jobId);
      expect((await claim())?.jobId).toBe(small.jobId);
      // Now 10 against 2: back to the big user, whose older job comes before the newer one.
      expect((await claim())?.jobId).toBe(big.jobId);
      expect((await claim())?.jobId).toBe(big.jobId);
      expect((await claim())?.jobId).toBe(bigAgain.jobId);
      expect(await claim()).toBeUndefined();
    });

    it('stops counting items as in flight once they are answered or released', async () => {
      const answered = await submitJob(['a1@a.test', 'a2@a.test', 'b1@b.test']);
      const released = await submitJob(['c1@c.test', 'c2@c.test', 'd1@d.test']);
      const first = (await claim())!;
      const second = (await claim())!;
      expect([first.userId, second.userId]).toEqual([answered.userId, released.userId]);
      await store.work.saveResults(answers(first, 'ok'));
      // Two in flight against none: the user whose items were answered goes first.
      expect((await claim(1))?.userId).toBe(answered.userId);
      await store.work.releaseLeases([second.lease]);
      // One in flight against none now: the user whose chunk was released.
      expect((await claim(1))?.userId).toBe(released.userId);
    });

    it('counts only live leases as in flight: an expired claim does not hold its user back', async () => {
      const first = await submitJob(['a1@a.test', 'b1@b.test']);
      await claim();
      const second = await submitJob(['c1@c.test', 'd1@d.test']);
      expect((await claim())?.jobId).toBe(second.jobId);
      later(LEASE_MS);
      // Both users have nothing in flight now; the first has waited longest.
      expect((await claim())?.jobId).toBe(first.jobId);
    });
  });

  describe('dashboard sessions and uploads', () => {
    it("sums a user's ledger and the verdicts of their completed jobs by UTC day, from a time on, no one else's", async () => {
      clock = new Date('2030-03-01T23:59:00.000Z');
      const user = await addUser('usage@example.test', 10);
      const other = await addUser('usage-other@example.test', 10);
      await store.accounts.charge(other.id, 1, 'verify');
      const paid = await store.accounts.charge(user.id, 1, 'verify');
      if (!paid.ok) throw new Error('expected a charge');
      await store.accounts.refund(user.id, { id: paid.chargeId, amount: 1 });
      clock = new Date('2030-03-02T00:01:00.000Z');
      const created = await store.jobs.createJob(user.id, ['a@x.test', 'b@x.test', 'c@x.test']);
      if (!created.ok) throw new Error('expected a job');
      const chunk = (await store.work.claimWork({ maxItems: 10, leaseMs: 60_000 }))!;
      const verdicts = ['valid', 'invalid', 'valid'] as const;
      await store.work.saveResults(
        chunk.items.map((item) => ({
          lease: chunk.lease,
          jobId: created.jobId,
          position: item.position,
          result: { ...resultFor(item.email), result: verdicts[item.position]! },
        })),
      );
      expect(await store.jobs.getJob(user.id, created.jobId)).toMatchObject({ status: 'completed' });

      expect(await store.dashboard.dailyCredits(user.id, '2030-03-01T00:00:00.000Z')).toEqual([
        { day: '2030-03-01', charged: 1, refunded: 1, granted: 10 },
        { day: '2030-03-02', charged: 3, refunded: 0, granted: 0 },
      ]);
      expect(await store.dashboard.dailyCredits(user.id, '2030-03-02T00:00:00.000Z')).toEqual([{ day: '2030-03-02', charged: 3, refunded: 0, granted: 0 }]);
      expect(await store.dashboard.dailyVerdicts(user.id, '2030-03-01T00:00:00.000Z')).toEqual([
        { day: '2030-03-02', verdict: 'invalid', count: 1 },
        { day: '2030-03-02', verdict: 'valid', count: 2 },
      ]);
      expect(await store.dashboard.dailyVerdicts(user.id, '2030-03-03T00:00:00.000Z')).toEqual([]);
      expect(await store.dashboard.dailyVerdicts(other.id, '2030-03-01T00:00:00.000Z')).toEqual([]);
    });

    it('finds a session by its id hash until it expires or is deleted, pruning expired ones at the next sign-in', async () => {
      const user = await addUser('session@example.com', 0);
      const expiresAt = new Date(clock.getTime() + 60_000);
      await store.dashboard.createSession({ idHash: 'a'.repeat(64), userId: user.id, csrfSecret: 'csrf-a', expiresAt });
      await store.dashboard.createSession({ idHash: 'b'.repeat(64), userId: user.id, csrfSecret: 'csrf-b', expiresAt });
      expect(await store.dashboard.findSession('a'.repeat(64))).toMatchObject({ userId: user.id, csrfSecret: 'csrf-a', expiresAt: expiresAt.toISOString() });
      expect(await store.dashboard.findSession('c'.repeat(64))).toBeUndefined();

      await store.dashboard.deleteSession('a'.repeat(64));
      expect(await store.dashboard.findSession('a'.repeat(64))).toBeUndefined();
      expect(await store.dashboard.findSession('b'.repeat(64))).toBeDefined();

      clock = new Date(expiresAt.getTime());
      expect(await store.dashboard.findSession('b'.repeat(64))).toBeUndefined();
      await store.dashboard.createSession({ idHash: 'd'.repeat(64), userId: user.id, csrfSecret: 'csrf-d', expiresAt: new Date(clock.getTime() + 60_000) });
      expect(await place.query('SELECT id_hash FROM sessions')).toEqual([{ id_hash: 'd'.repeat(64) }]);
    });

    it('keeps an upload for its owner only, attaches its job once, and lists jobs newest first with their file names', async () => {
      const owner = await addUser('owner@example.com', 10);
      const other = await addUser('other@example.com', 10);
      const content = Buffer.from('email\r\nann@example.org\r\n');
      const uploadId = (await store.dashboard.createUpload(owner.id, 'list.csv', content))!;
      expect(await store.dashboard.findUpload(other.id, uploadId)).toBeUndefined();
      expect(await store.dashboard.findUpload(owner.id, uploadId)).toMatchObject({ fileName: 'list.csv', content, column: null, jobId: null });

      const api = await store.jobs.createJob(owner.id, ['bob@example.org']);
      clock = new Date(clock.getTime() + 1_000);
      const fromFile = await store.jobs.createJob(owner.id, ['ann@example.org']);
      if (!api.ok || !fromFile.ok) throw new Error('jobs not created');
      await store.dashboard.attachUploadToJob(owner.id, uploadId, fromFile.jobId, '1');
      await store.dashboard.attachUploadToJob(owner.id, uploadId, api.jobId, '2');
      expect(await store.dashboard.findUploadOfJob(owner.id, fromFile.jobId)).toMatchObject({ id: uploadId, column: '1' });
      expect(await store.dashboard.findUploadOfJob(owner.id, api.jobId)).toBeUndefined();
      expect(await store.dashboard.findUploadOfJob(other.id, fromFile.jobId)).toBeUndefined();

      const listed = await store.jobs.listJobs(owner.id, 10);
      expect(listed.map((job) => [job.id, job.fileName, job.status, job.total])).toEqual([
        [fromFile.jobId, 'list.csv', 'processing', 1],
        [api.jobId, null, 'processing', 1],
      ]);
      expect(await store.jobs.listJobs(owner.id, 1)).toHaveLength(1);
      expect(await store.jobs.listJobs(other.id, 10)).toEqual([]);
      // A page after a listed job: the ones after it in the order, none of another user's.
      expect((await store.jobs.listJobs(owner.id, 10, listed[0])).map((job) => job.id)).toEqual([api.jobId]);
      expect(await store.jobs.listJobs(owner.id, 10, listed[1])).toEqual([]);
      expect(await store.jobs.listJobs(other.id, 10, listed[0])).toEqual([]);

      // Sandbox or live alone: a page holds only those, however the two interleave.
      clock = new Date(clock.getTime() + 1_000);
      const sandbox = await store.jobs.createJob(owner.id, ['sam@example.org'], undefined, { sandbox: true });
      if (!sandbox.ok) throw new Error('sandbox job not created');
      expect((await store.jobs.listJobs(owner.id, 1, undefined, true)).map((job) => job.id)).toEqual([sandbox.jobId]);
      expect((await store.jobs.listJobs(owner.id, 1, undefined, false)).map((job) => job.id)).toEqual([fromFile.jobId]);
      expect((await store.jobs.listJobs(owner.id, 10, listed[0], false)).map((job) => job.id)).toEqual([api.jobId]);
      expect(await store.jobs.listJobs(owner.id, 10, listed[0], true)).toEqual([]);
      expect(await store.jobs.listJobs(owner.id, 10)).toHaveLength(3);
    });
  });

  describe('host slots', () => {
    const SLOT_TTL_MS = 60_000;
    /** No process or session has this id: a holder that is gone (a worker SIGKILLed). */
    const GONE = '999999999:gone';
    let holder: Holder;
    const slotAt = (host: string, taker: string, { egress = 'default', limit = 2, on = store, priority = 'bulk' as 'interactive' | 'bulk' } = {}) =>
      on.hostSlots.take({ egress, host, limit, holder: taker, ttlMs: SLOT_TTL_MS, priority });

    beforeEach(async () => {
      holder = await store.holders.join();
    });

    afterEach(() => holder.leave());

    it('gives at most `limit` slots at a host from an egress, each host and egress its own, and a released slot again', async () => {
      const first = await slotAt('192.0.2.1', holder.id);
      expect(first).toMatch(/^[0-9a-f-]{36}$/);
      expect(await slotAt('192.0.2.1', holder.id)).toBeDefined();
      expect(await slotAt('192.0.2.1', holder.id)).toBeUndefined();
      expect(await slotAt('192.0.2.2', holder.id)).toBeDefined();
      expect(await slotAt('192.0.2.1', holder.id, { egress: '127.0.0.2' })).toBeDefined();
      await store.hostSlots.release(first!);
      expect(await slotAt('192.0.2.1', holder.id)).toBeDefined();
      expect(await slotAt('192.0.2.1', holder.id)).toBeUndefined();
    });

    it('frees the slots of a holder that is gone, not when they run out: at once on SQLite, after the grace on PostgreSQL', async () => {
      expect(await slotAt('192.0.2.1', GONE)).toBeDefined();
      expect(await slotAt('192.0.2.1', GONE)).toBeDefined();
      // The first look notes the missing session; its holder is gone once missing for the grace.
      expect(await slotAt('192.0.2.1', holder.id)).toEqual(kind.name === 'PostgreSQL' ? undefined : expect.any(String));
      later(ABSENCE_GRACE_MS - 1);
      if (kind.name === 'PostgreSQL') expect(await slotAt('192.0.2.1', holder.id)).toBeUndefined();
      later(1);
      expect(await slotAt('192.0.2.1', holder.id)).toBeDefined();
      if (kind.name === 'PostgreSQL') expect(await slotAt('192.0.2.1', holder.id)).toBeDefined();
      // Both of the gone holder's slots are taken over; the live holder's two fill the host again.
      expect(await slotAt('192.0.2.1', holder.id)).toBeUndefined();
    });

    it('frees at once the slots of a holder naming a process of this machine that has exited (a worker killed and restarted)', async () => {
      const exited = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
      await once(exited, 'exit');
      // The id this machine's dead process had, in each dialect's form (store/processes.ts).
      const [place] = (kind.name === 'PostgreSQL' ? newProcessHolderId('0123abcd') : THIS_PROCESS).split(':');
      const dead = kind.name === 'PostgreSQL' ? `${place}:${exited.pid}:-:0123abcd` : `${place}:${exited.pid}:-`;
      expect(await slotAt('192.0.2.1', dead)).toBeDefined();
      expect(await slotAt('192.0.2.1', dead)).toBeDefined();
      // No grace on PostgreSQL: the process is gone, nothing can be working its leases.
      expect(await slotAt('192.0.2.1', holder.id)).toBeDefined();
      expect(await slotAt('192.0.2.1', holder.id)).toBeDefined();
      expect(await slotAt('192.0.2.1', holder.id)).toBeUndefined();
    });

    it('keeps the slots of a live holder whatever the clock, and of a holder of another host on SQLite', async () => {
      // A pid no process here has, on another host: nothing this process can judge.
      const elsewhere = 'another-host:999999999:0';
      expect(await slotAt('192.0.2.1', holder.id)).toBeDefined();
      expect(await slotAt('192.0.2.1', kind.name === 'SQLite' ? elsewhere : holder.id)).toBeDefined();
      later(ABSENCE_GRACE_MS + 1);
      expect(await slotAt('192.0.2.1', holder.id)).toBeUndefined();
      later(ABSENCE_GRACE_MS + 1);
      expect(await slotAt('192.0.2.1', holder.id)).toBeUndefined();
    });

    it("frees a live holder's slot when it runs out (a holder alive but stuck), unless renewed", async () => {
      const first = await slotAt('192.0.2.1', holder.id, { limit: 1 });
      const second = await slotAt('192.0.2.2', holder.id, { limit: 1 });
      // Taken but not renewed (its release failed, say): renewing the others does not keep it.
      await slotAt('192.0.2.3', holder.id, { limit: 1 });
      later(SLOT_TTL_MS / 2);
      expect(await store.hostSlots.renew([first!, second!, 'no-such-slot'], SLOT_TTL_MS)).toBe(2);
      later(SLOT_TTL_MS / 2);
      expect(await slotAt('192.0.2.1', holder.id, { limit: 1 })).toBeUndefined();
      expect(await slotAt('192.0.2.3', holder.id, { limit: 1 })).toBeDefined();
      later(SLOT_TTL_MS / 2);
      expect(await slotAt('192.0.2.1', holder.id, { limit: 1 })).toBeDefined();
    });

    it('counts the slots a process with a higher limit holds against a lower limit', async () => {
      for (let index = 0; index < 3; index++) expect(await slotAt('192.0.2.1', holder.id, { limit: 3 })).toBeDefined();
      expect(await slotAt('192.0.2.1', holder.id, { limit: 2 })).toBeUndefined();
    });

    it('keeps bulk takes at a full host away while an interactive one waits there, so the next slot freed is its', async () => {
      const held = [await slotAt('192.0.2.1', holder.id), await slotAt('192.0.2.1', holder.id)];
      expect(await slotAt('192.0.2.1', holder.id, { priority: 'interactive' })).toBeUndefined();
      await store.hostSlots.release(held[0]!);
      expect(await slotAt('192.0.2.1', holder.id)).toBeUndefined();
      expect(await slotAt('192.0.2.2', holder.id)).toBeDefined();
      expect(await slotAt('192.0.2.1', holder.id, { priority: 'interactive' })).toBeDefined();
      // Served, it waits no more: bulk takes go on as before.
      await store.hostSlots.release(held[1]!);
      expect(await slotAt('192.0.2.1', holder.id)).toBeDefined();
    });

    it('lets bulk takes go on once an interactive one stops asking', async () => {
      await slotAt('192.0.2.1', holder.id, { limit: 1 });
      expect(await slotAt('192.0.2.1', holder.id, { limit: 1, priority: 'interactive' })).toBeUndefined();
      expect(await slotAt('192.0.2.1', holder.id, { limit: 2 })).toBeUndefined();
      later(HOST_SLOT_WAIT_MS);
      expect(await slotAt('192.0.2.1', holder.id, { limit: 2 })).toBeDefined();
    });

    it('of takes at one host from several connections at once, grants exactly `limit`', async () => {
      const connections = [store, await open(), await open()];
      const takes = Array.from({ length: 12 }, (_, index) => slotAt('192.0.2.1', holder.id, { limit: 4, on: connections[index % 3]! }));
      const granted = (await Promise.all(takes)).filter((id) => id !== undefined);
      expect(new Set(granted).size).toBe(4);
    });
  });

  describe('egress benches', () => {
    const HOUR_MS = 3_600_000;
    const bench = (egress: string, provider: string, cooldownMs = HOUR_MS, reason = `554 blocked ${egress}`, on = store) =>
      on.egressBenches.bench({ egress, provider, cooldownMs, reason });

    it('benches an egress at one provider only, for its cool-down, for every connection to the store', async () => {
      await bench('127.0.0.77', 'google.com');
      const other = await open();
      expect(await other.egressBenches.benched('google.com')).toEqual(['127.0.0.77']);
      expect(await store.egressBenches.benched('outlook.com')).toEqual([]);
      expect(await store.egressBenches.inForce()).toEqual([
        { egress: '127.0.0.77', provider: 'google.com', until: clock.getTime() + HOUR_MS, reason: '554 blocked 127.0.0.77' },
      ]);
      later(HOUR_MS - 1);
      expect(await store.egressBenches.benched('google.com')).toEqual(['127.0.0.77']);
      later(1);
      expect(await store.egressBenches.benched('google.com')).toEqual([]);
      expect(await store.egressBenches.inForce()).toEqual([]);
    });

    it('keeps the longer of two benches of one egress at one provider, with the last refusal', async () => {
      await bench('127.0.0.77', 'google.com', HOUR_MS, 'first');
      await bench('127.0.0.77', 'google.com', 60_000, 'second');
      await bench('SOCKS5 proxy 192.0.2.9:1080', 'google.com', 60_000);
      expect(await store.egressBenches.benched('google.com')).toEqual(['127.0.0.77', 'SOCKS5 proxy 192.0.2.9:1080']);
      later(60_000);
      expect(await store.egressBenches.inForce()).toEqual([
        { egress: '127.0.0.77', provider: 'google.com', until: clock.getTime() - 60_000 + HOUR_MS, reason: 'second' },
      ]);
    });

    it('expires the benches whose cool-down is over, and only those', async () => {
      await bench('127.0.0.77', 'google.com', HOUR_MS);
      await bench('127.0.0.78', 'google.com', 60_000);
      expect(await store.egressBenches.expire()).toBe(0);
      later(60_000);
      expect(await store.egressBenches.expire()).toBe(1);
      expect(await store.egressBenches.expire()).toBe(0);
      later(HOUR_MS);
      expect(await store.egressBenches.expire()).toBe(1);
      expect(await place.query('SELECT egress FROM egress_benches')).toEqual([]);
    });
  });
});
