import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashCode } from '../../src/server/auth/device-codes.js';
import type { NewDeviceGrant, Store } from '../../src/server/store/store.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';

// Devices' requests to log in (store.ts DeviceGrantStore), the same on both stores: each state of
// RFC 8628 §3.5 as the store decides it, on a clock the test moves.

const MINUTE = 60_000;

describe.each(STORE_KINDS)('device grants on the $name store', (kind) => {
  let place: StoreFixture;
  let store: Store;
  let clock: Date;
  let userId: number;
  const later = (ms: number) => (clock = new Date(clock.getTime() + ms));

  const request = (n: number, overrides: Partial<NewDeviceGrant> = {}): NewDeviceGrant => ({
    deviceCodeHash: hashCode(`device-${n}`),
    userCodeHash: hashCode(`USERCOD${n}`),
    clientName: `box ${n}`,
    grant: { scopes: ['verify', 'results'], expiresAt: null },
    lifetimeMs: 10 * MINUTE,
    intervalSeconds: 5,
    ...overrides,
  });
  const poll = (n: number, token = `mv_token-${n}-${Math.random()}`) => store.deviceGrants.poll(hashCode(`device-${n}`), hashCode(token));

  beforeEach(async () => {
    clock = new Date('2030-01-01T00:00:00.000Z');
    place = await kind.create();
    store = await place.open(() => clock);
    userId = (await store.accounts.createUser({ email: 'dee@example.test', passwordHash: null, balance: 0, rateLimit: 20, rateWindowSeconds: 1 })).id;
  });
  afterEach(() => place?.close());

  it('keeps a request pending, holds its device to the interval (5 s longer at each slow_down), and refuses a taken user code', async () => {
    expect(await store.deviceGrants.create(request(1))).toBe(true);
    expect(await store.deviceGrants.create(request(2, { userCodeHash: hashCode('USERCOD1') }))).toBe(false);
    expect(await store.deviceGrants.findByUserCode(hashCode('USERCOD1'))).toEqual({
      clientName: 'box 1',
      grant: { scopes: ['verify', 'results'], expiresAt: null },
      status: 'pending',
      createdAt: clock.toISOString(),
      expiresAt: new Date(clock.getTime() + 10 * MINUTE).toISOString(),
      live: true,
    });
    expect(await poll(1)).toEqual({ outcome: 'pending' });
    later(4_999);
    expect(await poll(1)).toEqual({ outcome: 'slow_down', intervalSeconds: 10 });
    later(9_000);
    expect(await poll(1)).toEqual({ outcome: 'slow_down', intervalSeconds: 15 });
    later(15_000);
    expect(await poll(1)).toEqual({ outcome: 'pending' });
  });

  it("hands an approved request its token once, as the approving account's, whatever the pace; then the code is unknown", async () => {
    await store.deviceGrants.create(request(1));
    expect(await store.deviceGrants.decide(hashCode('USERCOD1'), userId, true)).toBe(true);
    // Decided once: neither approved again nor denied after.
    expect(await store.deviceGrants.decide(hashCode('USERCOD1'), userId, false)).toBe(false);
    const tokenHashes = ['a', 'b', 'c'].map((n) => `mv_concurrent-${n}`);
    // Polls at once (the pool's connections on PostgreSQL): one token, the rest find the code used.
    const answers = await Promise.all(tokenHashes.map((token) => poll(1, token)));
    const issued = answers.filter((answer) => answer.outcome === 'issued');
    expect(issued).toHaveLength(1);
    expect(answers.filter((answer) => answer.outcome === 'unknown')).toHaveLength(2);
    const tokens = await store.tokens.listApiTokens(userId);
    expect(tokens).toEqual([expect.objectContaining({ name: 'box 1', scopes: ['verify', 'results'], expiresAt: null })]);
    expect(issued[0]).toMatchObject({ token: { id: tokens[0]!.id, userId } });
    expect(await poll(1)).toEqual({ outcome: 'unknown' });
    expect((await store.deviceGrants.findByUserCode(hashCode('USERCOD1')))?.status).toBe('issued');
  });

  it('answers denied to a denied request, expired once its time is up (and it can no longer be decided), unknown for a code never given', async () => {
    await store.deviceGrants.create(request(1));
    await store.deviceGrants.create(request(2));
    expect(await store.deviceGrants.decide(hashCode('USERCOD1'), userId, false)).toBe(true);
    expect(await poll(1)).toEqual({ outcome: 'denied' });
    expect(await poll(1)).toEqual({ outcome: 'denied' });
    later(10 * MINUTE);
    expect(await poll(2)).toEqual({ outcome: 'expired' });
    expect(await store.deviceGrants.decide(hashCode('USERCOD2'), userId, true)).toBe(false);
    expect((await store.deviceGrants.findByUserCode(hashCode('USERCOD2')))?.live).toBe(false);
    expect(await poll(3)).toEqual({ outcome: 'unknown' });
    expect(await store.tokens.listApiTokens(userId)).toEqual([]);
  });

  it('forgets requests expired an hour ago when a new one is made, freeing their user codes; a deleted account takes its requests along', async () => {
    await store.deviceGrants.create(request(1));
    later(10 * MINUTE + 59 * MINUTE);
    expect(await store.deviceGrants.create(request(2, { userCodeHash: hashCode('USERCOD1') }))).toBe(false);
    later(2 * MINUTE);
    expect(await store.deviceGrants.create(request(2, { userCodeHash: hashCode('USERCOD1') }))).toBe(true);
    expect(await poll(1)).toEqual({ outcome: 'unknown' });

    await store.deviceGrants.decide(hashCode('USERCOD1'), userId, true);
    expect(await store.accounts.deleteUser(userId)).toBe(true);
    expect(await store.deviceGrants.findByUserCode(hashCode('USERCOD1'))).toBeUndefined();
  });
});
