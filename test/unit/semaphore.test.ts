import { describe, expect, it } from 'vitest';
import { KeyedSemaphore, Semaphore } from '../../src/engine/semaphore.js';

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
