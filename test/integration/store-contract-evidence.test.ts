import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EvidenceEvent } from '../../src/engine/evidence/event.js';
import type { Store } from '../../src/server/store/store.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';

// The evidence part of the store contract (store.ts EvidenceStore), on both stores, each test on a fresh one.

const bounce = (email: string, at: string, source = 'postfix'): EvidenceEvent => ({
  email,
  kind: 'bounce',
  at,
  status: '5.1.1',
  diagnostic: '550 5.1.1 <x>: Recipient address rejected: User unknown',
  source,
});
const delivery = (email: string, at: string, source = 'ses'): EvidenceEvent => ({ email, kind: 'delivery', at, source });

describe.each(STORE_KINDS)('evidence on the $name store', (kind) => {
  let place: StoreFixture;
  let store: Store;
  let clock: Date;

  async function owner(email: string): Promise<number> {
    return (await store.accounts.createUser({ email, passwordHash: null, balance: 100, rateLimit: 20, rateWindowSeconds: 1 })).id;
  }

  beforeEach(async () => {
    place = await kind.create();
    clock = new Date('2026-11-21T12:00:00.000Z');
    store = await place.open(() => clock);
  });

  afterEach(() => place.close());

  it('keeps identical events once, by address key, and shows each account only its own', async () => {
    const ann = await owner('ann@example.test');
    const bob = await owner('bob@example.test');
    const events = [bounce('Gone@Example.TEST', '2026-10-01T08:00:00Z'), delivery('kept@example.test', '2026-10-02T08:00:00.000Z')];
    expect(await store.evidence.addEvidence(ann, [...events, events[0]!])).toEqual({ added: 2 });
    // The same bounce with the address in another case and the time written otherwise is the same event.
    expect(await store.evidence.addEvidence(ann, [bounce('gone@example.test', '2026-10-01T08:00:00.000Z')])).toEqual({ added: 0 });
    expect(await store.evidence.addEvidence(bob, [delivery('gone@example.test', '2026-11-01T08:00:00Z', 'sendgrid')])).toEqual({ added: 1 });

    const found = await store.evidence.evidenceFor(ann, ['GONE@example.test', 'none@example.test']);
    expect([...found.keys()]).toEqual(['GONE@example.test'.toLowerCase()]);
    expect(found.get('gone@example.test')).toEqual([{ ...bounce('gone@example.test', '2026-10-01T08:00:00.000Z') }]);
    expect((await store.evidence.evidenceFor(bob, ['gone@example.test'])).get('gone@example.test')).toEqual([
      delivery('gone@example.test', '2026-11-01T08:00:00.000Z', 'sendgrid'),
    ]);
    expect(await store.evidence.evidenceCounts(ann)).toEqual([
      { kind: 'bounce', source: 'postfix', count: 1 },
      { kind: 'delivery', source: 'ses', count: 1 },
    ]);
  });

  it('reads events newest first within a window, and pages the list', async () => {
    const ann = await owner('ann@example.test');
    const times = ['2026-01-01T00:00:00.000Z', '2026-09-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z'];
    await store.evidence.addEvidence(ann, [delivery('a@x.test', times[0]!), bounce('a@x.test', times[2]!), delivery('a@x.test', times[1]!)]);
    const all = (await store.evidence.evidenceFor(ann, ['a@x.test'])).get('a@x.test')!;
    expect(all.map((event) => event.at)).toEqual([...times].reverse());
    const recent = (await store.evidence.evidenceFor(ann, ['a@x.test'], '2026-06-01T00:00:00.000Z')).get('a@x.test')!;
    expect(recent.map((event) => event.at)).toEqual([times[2], times[1]]);

    const first = await store.evidence.listEvidence(ann, { limit: 2 });
    expect(first.events).toHaveLength(2);
    expect(first.cursor).toBeDefined();
    const second = await store.evidence.listEvidence(ann, { limit: 2, cursor: first.cursor });
    expect(second.events).toHaveLength(1);
    expect(second.cursor).toBeUndefined();
    expect(new Set([...first.events, ...second.events].map((event) => event.at))).toEqual(new Set(times));
    expect((await store.evidence.listEvidence(ann, { limit: 10, email: 'A@X.TEST' })).events).toHaveLength(3);
    expect((await store.evidence.listEvidence(ann, { limit: 10, email: 'b@x.test' })).events).toEqual([]);
  });

  it('deletes by address, by source, all, past the retention, and with the account', async () => {
    const ann = await owner('ann@example.test');
    const bob = await owner('bob@example.test');
    await store.evidence.addEvidence(ann, [bounce('a@x.test', '2026-10-01T00:00:00Z'), delivery('b@x.test', '2026-10-01T00:00:00Z')]);
    await store.evidence.addEvidence(ann, [delivery('c@x.test', '2026-10-01T00:00:00Z', 'postfix')]);
    await store.evidence.addEvidence(bob, [bounce('a@x.test', '2026-10-01T00:00:00Z')]);
    expect(await store.evidence.deleteEvidence(ann, { email: 'A@x.test' })).toBe(1);
    expect(await store.evidence.deleteEvidence(ann, { source: 'ses' })).toBe(1);
    expect(await store.evidence.deleteEvidence(ann, { source: 'ses' })).toBe(0);
    expect(await store.evidence.deleteEvidence(ann, {})).toBe(1);
    expect((await store.evidence.evidenceFor(bob, ['a@x.test'])).size).toBe(1);

    clock = new Date('2026-11-22T12:00:00.000Z');
    await store.evidence.addEvidence(ann, [delivery('d@x.test', '2026-10-01T00:00:00Z')]);
    // Imported before the day began: bob's goes, ann's (imported later) stays.
    expect(await store.evidence.deleteEvidenceBefore('2026-11-22T00:00:00.000Z', 10)).toBe(1);
    expect((await store.evidence.evidenceFor(bob, ['a@x.test'])).size).toBe(0);
    expect((await store.evidence.evidenceFor(ann, ['d@x.test'])).size).toBe(1);
    await store.accounts.deleteUser(ann);
    expect(await store.evidence.evidenceCounts(ann)).toEqual([]);
  });
});
