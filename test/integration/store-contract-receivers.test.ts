import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewReceiver, Store } from '../../src/server/store/store.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';

// The evidence receivers part of the store contract (store.ts EvidenceReceiverStore), on both stores.

describe.each(STORE_KINDS)('evidence receivers on the $name store', (kind) => {
  let place: StoreFixture;
  let store: Store;
  let clock: Date;

  const sendgrid = (urlHash: string): NewReceiver => ({ kind: 'sendgrid', urlHash, publicKey: 'MFkw', topicArn: null });
  const sns = (urlHash: string, topicArn: string | null = null): NewReceiver => ({ kind: 'sns', urlHash, publicKey: null, topicArn });
  const owner = async (email: string) => (await store.accounts.createUser({ email, passwordHash: null, balance: 0, rateLimit: 20, rateWindowSeconds: 1 })).id;

  beforeEach(async () => {
    place = await kind.create();
    clock = new Date('2026-11-21T12:00:00.000Z');
    store = await place.open(() => clock);
  });
  afterEach(() => place.close());

  it("keeps an account's receivers, finds a post's by its URL hash, and lists them only to their owner", async () => {
    const alice = await owner('alice@example.test');
    const bob = await owner('bob@example.test');
    const first = (await store.evidenceReceivers.createReceiver(alice, sendgrid('h1')))!;
    const createdAt = clock.toISOString();
    clock = new Date('2026-11-21T12:00:01.000Z');
    const second = (await store.evidenceReceivers.createReceiver(alice, sns('h2', 'arn:aws:sns:eu-west-1:1:t')))!;
    expect(first).toEqual({
      id: expect.any(String),
      userId: alice,
      kind: 'sendgrid',
      publicKey: 'MFkw',
      topicArn: null,
      createdAt,
      confirmedAt: null,
      lastEventAt: null,
    });
    expect(second).toMatchObject({ kind: 'sns', topicArn: 'arn:aws:sns:eu-west-1:1:t', publicKey: null });
    expect((await store.evidenceReceivers.listReceivers(alice)).map((receiver) => receiver.id)).toEqual([first.id, second.id]);
    expect(await store.evidenceReceivers.listReceivers(bob)).toEqual([]);
    expect(await store.evidenceReceivers.findReceiverByHash('h2')).toEqual(second);
    expect(await store.evidenceReceivers.findReceiverByHash('nope')).toBeUndefined();
  });

  it('notes confirmations and events, and removes a receiver only for its owner', async () => {
    const alice = await owner('alice@example.test');
    const bob = await owner('bob@example.test');
    const receiver = (await store.evidenceReceivers.createReceiver(alice, sns('h1')))!;
    clock = new Date('2026-11-21T12:05:00.000Z');
    await store.evidenceReceivers.noteReceived(receiver.id, 'confirmed');
    clock = new Date('2026-11-21T12:06:00.000Z');
    await store.evidenceReceivers.noteReceived(receiver.id, 'events');
    expect(await store.evidenceReceivers.findReceiverByHash('h1')).toMatchObject({
      confirmedAt: '2026-11-21T12:05:00.000Z',
      lastEventAt: '2026-11-21T12:06:00.000Z',
    });
    expect(await store.evidenceReceivers.removeReceiver(bob, receiver.id)).toBe(false);
    expect(await store.evidenceReceivers.removeReceiver(alice, receiver.id)).toBe(true);
    expect(await store.evidenceReceivers.removeReceiver(alice, receiver.id)).toBe(false);
    expect(await store.evidenceReceivers.findReceiverByHash('h1')).toBeUndefined();
  });

  it('refuses a receiver past the limit, and goes with its account', async () => {
    const alice = await owner('alice@example.test');
    expect(await store.evidenceReceivers.createReceiver(alice, sendgrid('h1'), 2)).toBeDefined();
    expect(await store.evidenceReceivers.createReceiver(alice, sendgrid('h2'), 2)).toBeDefined();
    expect(await store.evidenceReceivers.createReceiver(alice, sendgrid('h3'), 2)).toBeUndefined();
    expect(await store.evidenceReceivers.listReceivers(alice)).toHaveLength(2);
    await store.accounts.deleteUser(alice);
    expect(await store.evidenceReceivers.findReceiverByHash('h1')).toBeUndefined();
  });
});
