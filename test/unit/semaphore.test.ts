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
    expect(semaphore.wanted).toBe(false);
    const interactive = semaphore.acquire('interactive');
    expect(semaphore.wanted).toBe(true);
    release();
    (await interactive)();
    expect(semaphore.wanted).toBe(false);
    (await bulk)();
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
