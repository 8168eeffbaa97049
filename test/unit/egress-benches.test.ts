import { describe, expect, it } from 'vitest';
import { BenchBoard, InProcessBenches } from '../../src/engine/net/egress-benches.js';
import type { EgressBench, EgressBenches } from '../../src/engine/core/types.js';

const HOUR_MS = 3_600_000;
const bench = (egress: string, provider = 'google.com', cooldownMs = HOUR_MS): EgressBench => ({ egress, provider, cooldownMs, reason: 'blocked' });

/** A clock the test moves. */
function clock() {
  let now = 1_000_000;
  return { now: () => now, later: (ms: number) => void (now += ms) };
}

describe('InProcessBenches', () => {
  it('benches an egress at one provider for its cool-down, the longer bench kept', async () => {
    const time = clock();
    const benches = new InProcessBenches(time.now);
    await benches.bench(bench('127.0.0.77'));
    await benches.bench(bench('127.0.0.77', 'google.com', 60_000));
    expect(await benches.benched('google.com')).toEqual(['127.0.0.77']);
    expect(await benches.benched('outlook.com')).toEqual([]);
    time.later(HOUR_MS - 1);
    expect(await benches.benched('google.com')).toEqual(['127.0.0.77']);
    time.later(1);
    expect(await benches.benched('google.com')).toEqual([]);
  });
});

describe('BenchBoard', () => {
  /** Shared benches that count how often they are asked, and fail when told to. */
  function sharedStore() {
    const time = clock();
    const kept = new InProcessBenches(time.now);
    const store: EgressBenches & { asked: number; failing: boolean } = {
      asked: 0,
      failing: false,
      bench: (each: EgressBench) => (store.failing ? Promise.reject(new Error('down')) : kept.bench(each)),
      benched: (provider: string) => {
        store.asked += 1;
        return store.failing ? Promise.reject(new Error('down')) : kept.benched(provider);
      },
    };
    return { store, time };
  }

  it("knows its own benches at once, and another process's within 5 s, asking the store once meanwhile", async () => {
    const { store, time } = sharedStore();
    const errors: unknown[] = [];
    const board = new BenchBoard(store, (error) => errors.push(error), time.now);
    expect([...(await board.benched('google.com'))]).toEqual([]);
    await store.bench(bench('127.0.0.78'));
    board.bench(bench('127.0.0.77'));
    expect([...(await board.benched('google.com'))]).toEqual(['127.0.0.77']);
    time.later(4_999);
    await board.benched('google.com');
    expect(store.asked).toBe(1);
    time.later(1);
    expect(new Set(await board.benched('google.com'))).toEqual(new Set(['127.0.0.77', '127.0.0.78']));
    expect(store.asked).toBe(2);
    expect(errors).toEqual([]);
  });

  it('goes on with what it knew when the store does not answer, and says so', async () => {
    const { store, time } = sharedStore();
    const errors: unknown[] = [];
    const board = new BenchBoard(store, (error) => errors.push(error), time.now);
    await store.bench(bench('127.0.0.78'));
    expect([...(await board.benched('google.com'))]).toEqual(['127.0.0.78']);
    store.failing = true;
    time.later(5_000);
    board.bench(bench('127.0.0.77'));
    expect(new Set(await board.benched('google.com'))).toEqual(new Set(['127.0.0.77', '127.0.0.78']));
    expect(errors.length).toBeGreaterThanOrEqual(2);
  });
});
