import { afterEach, describe, expect, it } from 'vitest';
import { shareHostSlots, type HostSlotSharing } from '../../src/server/verifier/shared-host-slots.js';
import type { HostSlotStore } from '../../src/server/store/store.js';
import type { Store } from '../../src/server/store/store.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';

/**
 * A slot a session frees is handed on to the process's next session at the same egress and host
 * without a round of the store, for a while, then given back; the store's own SQLite store counts
 * what reached it.
 */

const sqlite = STORE_KINDS.find((kind) => kind.name === 'SQLite')!;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Counted {
  slots: HostSlotStore;
  takes: () => number;
  releases: () => number;
}

function counting(store: Store): Counted {
  let takes = 0;
  let releases = 0;
  return {
    slots: {
      take: (request) => ((takes += 1), store.hostSlots.take(request)),
      release: (id) => ((releases += 1), store.hostSlots.release(id)),
      renew: (ids, ttlMs) => store.hostSlots.renew(ids, ttlMs),
    },
    takes: () => takes,
    releases: () => releases,
  };
}

describe('shared host slots', () => {
  let fixture: StoreFixture | undefined;
  let sharing: HostSlotSharing | undefined;
  afterEach(async () => {
    sharing?.stop();
    await fixture?.close();
  });

  async function start(): Promise<{ counted: Counted; other: HostSlotStore }> {
    fixture = await sqlite.create();
    const counted = counting(await fixture.open());
    sharing = shareHostSlots(counted.slots, { holder: 'this-process' });
    return { counted, other: (await fixture.open()).hostSlots };
  }

  it('hands a freed slot on to the next session at the same host, and gives it back when none comes', async () => {
    const { counted, other } = await start();
    const first = await sharing!.take('mx.example', 1, 'bulk', '127.0.0.2');
    await first();
    const second = await sharing!.take('mx.example', 1, 'bulk', '127.0.0.2');
    expect(counted.takes()).toBe(1);
    expect(await other.take({ egress: '127.0.0.2', host: 'mx.example', limit: 1, holder: 'another-process', ttlMs: 60_000, priority: 'bulk' })).toBeUndefined();
    await second();
    await pause(300);
    expect(counted.releases()).toBe(1);
    expect(await other.take({ egress: '127.0.0.2', host: 'mx.example', limit: 1, holder: 'another-process', ttlMs: 60_000, priority: 'bulk' })).toBeDefined();
  });

  it('hands on only at the same egress and host', async () => {
    const { counted } = await start();
    await (
      await sharing!.take('mx.example', 1, 'bulk', '127.0.0.2')
    )();
    await sharing!.take('mx.example', 1, 'bulk', '127.0.0.3');
    await sharing!.take('mx2.example', 1, 'bulk', '127.0.0.2');
    expect(counted.takes()).toBe(3);
  });

  it('gives a slot back after a second of handing on, so that others get their turn', async () => {
    const { counted } = await start();
    let release = await sharing!.take('mx.example', 1, 'bulk', '127.0.0.2');
    for (let session = 0; session < 12; session++) {
      await pause(100);
      await release();
      release = await sharing!.take('mx.example', 1, 'bulk', '127.0.0.2');
    }
    // 1.2 s of sessions: the first take's slot went back once it was a second old, and was taken again.
    expect(counted.takes()).toBe(2);
    expect(counted.releases()).toBe(1);
  });

  it('gives the spare slots back when it stops', async () => {
    const { counted } = await start();
    await (
      await sharing!.take('mx.example', 2, 'bulk', '127.0.0.2')
    )();
    sharing!.stop();
    await pause(20);
    expect(counted.releases()).toBe(1);
  });
});
