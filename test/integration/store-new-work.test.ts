import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/server/store/store.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';

const CHANNEL = 'mailverify_work';

// PostgreSQL only: nodes on one SQLite data dir are told nothing and look every second (Store.onNewWork).
describe.each(STORE_KINDS.filter((kind) => kind.name === 'PostgreSQL'))('new work on the $name store', (kind) => {
  let place: StoreFixture;
  let here: Store;
  let elsewhere: Store;
  let listener: pg.Client;

  beforeEach(async () => {
    place = await kind.create();
    [here, elsewhere] = [await place.open(), await place.open()];
    listener = new pg.Client({ connectionString: place.location.databaseUrl });
    await listener.connect();
  });

  afterEach(async () => {
    await listener.end();
    await place.close();
  });

  it('is told to every other node when one creates a job with addresses, at its commit, and only then', async () => {
    let told = 0;
    await here.install.onNewWork(() => (told += 1));
    const heard: string[] = [];
    const ended = new Promise<void>((resolve) =>
      listener.on('notification', ({ channel, payload }) => (channel === CHANNEL && payload === 'end' ? resolve() : heard.push(channel))),
    );
    await listener.query(`LISTEN ${CHANNEL}`);
    const version = await here.install.dataVersion();
    const user = await elsewhere.accounts.createUser({ email: 'owner@example.test', passwordHash: null, balance: 10, rateLimit: 20, rateWindowSeconds: 1 });

    // A list the balance does not cover creates no job, an empty one no work: neither tells anyone.
    expect(
      await elsewhere.jobs.createJob(
        user.id,
        Array.from({ length: 11 }, (_, index) => `a${index}@example.test`),
      ),
    ).toMatchObject({ ok: false });
    expect(await elsewhere.jobs.createJob(user.id, [])).toMatchObject({ ok: true });
    expect(await elsewhere.jobs.createJob(user.id, ['a@example.test', 'b@example.test'])).toMatchObject({ ok: true });
    // Notifications arrive in commit order: this one, committed last, closes what there was to hear.
    await listener.query(`NOTIFY ${CHANNEL}, 'end'`);
    await ended;
    expect(heard).toEqual([CHANNEL]);
    // The store's own listener heard the job too (and then the test's 'end').
    await expect.poll(() => told).toBe(2);
    // New work is not a change to cached identities: the authenticator's caches stay.
    expect(await here.install.dataVersion()).toBe(version);
  });
});
