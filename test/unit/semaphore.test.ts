import { describe, expect, it } from 'vitest';
import { KeyedSemaphore, Semaphore } from '../../src/engine/core/semaphore.js';

/** Lets every settled promise's callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('Semaphore', () => {
  it('serves interactive waiters before bulk ones, each first come, first served', async () => {
    const semaphore = new Semaphore(1);
    const releaseFirst = await semaphore.acquire();
    const order: string[] = [];
    const queue = (name: string, priority: 'interactive' | 'bulk') =>
      semaphore.acquire(priority).then((release) => {
        order.push(name);
        release();
      });
    const all = [queue('bulk 1', 'bulk'), queue('bulk 2', 'bulk'), queue('interactive 1', 'interactive'), queue('interactive 2', 'interactive')];
    await settle();
    expect(order).toEqual([]);
    releaseFirst();
    await Promise.all(all);
    expect(order).toEqual(['interactive 1', 'interactive 2', 'bulk 1', 'bulk 2']);
  });

  it('is wanted while an interactive caller waits, not while only bulk ones do', async () => {
    const semaphore = new Semaphore(1);
    const release = await semaphore.acquire('bulk');
    const bulk = semaphore.acquire('bulk');
    expect(semaphore.wanted()).toBe(false);
    const interactive = semaphore.acquire('interactive');
    expect(semaphore.wanted()).toBe(true);
    release();
    (await interactive)();
    expect(semaphore.wanted()).toBe(false);
    (await bulk)();
    expect(semaphore.idle).toBe(true);
  });
});

describe('Semaphore shares', () => {
  it('gives a released bulk slot to the waiting share holding the fewest, not to the first come', async () => {
    const semaphore = new Semaphore(2);
    const heldByA = [await semaphore.acquire('bulk', 'a'), await semaphore.acquire('bulk', 'a')];
    const order: string[] = [];
    const queue = (name: string, share: string) =>
      semaphore.acquire('bulk', share).then((release) => {
        order.push(name);
        return release;
      });
    const waiting = [queue('a 3', 'a'), queue('a 4', 'a'), queue('b 1', 'b')];
    await settle();
    heldByA[0]!();
    await settle();
    // b holds none, a holds one: b goes first although a's waiters came before.
    expect(order).toEqual(['b 1']);
    heldByA[1]!();
    await settle();
    expect(order).toEqual(['b 1', 'a 3']);
    const [a3, a4, b1] = waiting;
    (await b1!)();
    (await a4!)();
    (await a3!)();
    expect(order).toEqual(['b 1', 'a 3', 'a 4']);
    expect(semaphore.idle).toBe(true);
  });

  it("is wanted back by a share's holders while a share holding at least two fewer waits", async () => {
    const semaphore = new Semaphore(2);
    const held = [await semaphore.acquire('bulk', 'a'), await semaphore.acquire('bulk', 'a')];
    const ownWaiter = semaphore.acquire('bulk', 'a');
    expect(semaphore.wanted('a')).toBe(false);
    const other = semaphore.acquire('bulk', 'b');
    expect(semaphore.wanted('a')).toBe(true);
    expect(semaphore.wanted('b')).toBe(false);
    held[0]!();
    (await other)();
    held[1]!();
    (await ownWaiter)();
    expect(semaphore.idle).toBe(true);
  });
});

describe('Semaphore claims within a share (hosts sharing the global session slots)', () => {
  /** Queues named claims, recording the order they get a slot; each holds it until released. */
  function claims(semaphore: Semaphore) {
    const order: string[] = [];
    const queue = (name: string, group: string, weight: number) =>
      semaphore.acquire('bulk', '', { group, weight }).then((release) => {
        order.push(name);
        return release;
      });
    return { order, queue };
  }

  it('gives a released slot to the heaviest claim per slot its host would then hold, a host not heard from before any', async () => {
    const semaphore = new Semaphore(2);
    const held = [await semaphore.acquire('bulk', '', { group: 'fast', weight: 100 }), await semaphore.acquire('bulk', '', { group: 'fast', weight: 100 })];
    const { order, queue } = claims(semaphore);
    // Per slot its host would then hold: fast 900 / 2 (one slot given back), later 900 / 1; slow 1000 / 1; unknown Infinity.
    const waiting = [queue('fast', 'fast', 900), queue('slow', 'slow', 1000), queue('unknown', 'new', Infinity)];
    await settle();
    held[0]!();
    await settle();
    expect(order).toEqual(['unknown']);
    held[1]!();
    await settle();
    expect(order).toEqual(['unknown', 'slow']);
    for (const release of await Promise.all(waiting.slice(1, 3))) release();
    (await waiting[0]!)();
    expect(order).toEqual(['unknown', 'slow', 'fast']);
    expect(semaphore.idle).toBe(true);
  });

  it('is wanted back for a host holding no slot from a host holding two, and for a claim more than four times as heavy per slot', async () => {
    const semaphore = new Semaphore(2);
    const held = [await semaphore.acquire('bulk', '', { group: 'a', weight: 100 }), await semaphore.acquire('bulk', '', { group: 'a', weight: 100 })];
    // a's holders: what is left of their work weighs 100, 50 per slot.
    const aClaim = { group: 'a', weight: 100 };
    const light = semaphore.acquire('bulk', '', { group: 'a', weight: 150 });
    expect(semaphore.wanted('', aClaim)).toBe(false);
    const starving = semaphore.acquire('bulk', '', { group: 'b', weight: 10 });
    // b holds nothing while a holds two.
    expect(semaphore.wanted('', aClaim)).toBe(true);
    held[0]!();
    const releaseB = await starving;
    // Now one each: b's 10 does not outweigh a's 100, and a's own waiter is no reason.
    expect(semaphore.wanted('', { group: 'a', weight: 100 })).toBe(false);
    const heavy = semaphore.acquire('bulk', '', { group: 'c', weight: 401 });
    expect(semaphore.wanted('', { group: 'b', weight: 100 })).toBe(true);
    expect(semaphore.wanted('', { group: 'b', weight: 101 })).toBe(false);
    releaseB();
    held[1]!();
    (await heavy)();
    (await light)();
    expect(semaphore.idle).toBe(true);
  });

  it('is spare only with a free slot and nobody waiting, and says so once at the next release that leaves one', async () => {
    const semaphore = new Semaphore(1);
    expect(semaphore.spare).toBe(true);
    const first = await semaphore.acquire();
    expect(semaphore.spare).toBe(false);
    const told: string[] = [];
    semaphore.onSpare(() => told.push('spare'));
    const second = semaphore.acquire();
    first();
    // The slot went to the waiter: nothing spare yet.
    expect(told).toEqual([]);
    (await second)();
    expect(told).toEqual(['spare']);
    expect(semaphore.spare).toBe(true);
    expect(semaphore.idle).toBe(true);
  });
});

describe('KeyedSemaphore', () => {
  it('says which key an interactive caller waits for, and forgets idle keys', async () => {
    const semaphores = new KeyedSemaphore();
    const release = await semaphores.acquire('mx.one', 1, 'bulk');
    const waiting = semaphores.acquire('mx.one', 1, 'interactive');
    expect(semaphores.wanted('mx.one')).toBe(true);
    expect(semaphores.wanted('mx.two')).toBe(false);
    release();
    (await waiting)();
    expect(semaphores.wanted('mx.one')).toBe(false);
  });
});
