import { describe, expect, it } from 'vitest';
import { createServerPacer, parseQuota, parseRateLimit } from '../../src/client/rate-limiter.js';

/** The client's reading of the service's RateLimit fields (docs/api.md "Limits and headers"), on a clock the test moves. */

function fakeClock() {
  let now = 0;
  return {
    now: () => now,
    wait: async (ms: number) => {
      now += ms;
    },
  };
}

const answer = (r: number, t: number, q = 3) => ({ status: 200, rateLimit: `"default";r=${r};t=${t}`, policy: `"default";q=${q};w=1` });

describe('parseRateLimit and parseQuota', () => {
  it('read the first policy of the draft syntax and refuse anything else', () => {
    expect(parseRateLimit('"default";r=0;t=3')).toEqual({ remaining: 0, resetSeconds: 3 });
    expect(parseRateLimit('"default";r=7;t=1, "day";r=900;t=3600')).toEqual({ remaining: 7, resetSeconds: 1 });
    expect(parseRateLimit(undefined)).toBeUndefined();
    expect(parseRateLimit('"default";t=3')).toBeUndefined();
    expect(parseRateLimit('"default";r=-1;t=3')).toBeUndefined();
    expect(parseQuota('"default";q=20;w=1')).toBe(20);
    expect(parseQuota('"default";w=1')).toBeUndefined();
  });
});

describe('createServerPacer', () => {
  it('sends one request alone until an answer says where the window stands', async () => {
    const pacer = createServerPacer(fakeClock());
    const first = await pacer.ready();
    let second = false;
    const waiting = pacer.ready().then((done) => {
      second = true;
      return done;
    });
    await Promise.resolve();
    expect(second).toBe(false);
    first(answer(2, 1));
    (await waiting)(answer(1, 1));
    expect(second).toBe(true);
  });

  it('waits for the reset once none is left, then has the quota again', async () => {
    const clock = fakeClock();
    const pacer = createServerPacer(clock);
    (await pacer.ready())(answer(2, 2));
    const started: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      await pacer.ready();
      started.push(clock.now());
    }
    // Two left in the window ending at 2 s; then the policy's 3 in the next one.
    expect(started).toEqual([0, 0, 2_000, 2_000, 2_000]);
  });

  it('keeps the lowest count of one window when answers come back out of order', async () => {
    const clock = fakeClock();
    const pacer = createServerPacer(clock);
    (await pacer.ready())(answer(5, 1));
    const a = await pacer.ready();
    const b = await pacer.ready();
    b(answer(0, 1));
    a(answer(3, 1));
    await pacer.ready();
    expect(clock.now()).toBe(1_000);
  });

  it('counts the requests still in flight against what an answer says is left', async () => {
    const clock = fakeClock();
    const pacer = createServerPacer(clock);
    (await pacer.ready())(answer(3, 1));
    const a = await pacer.ready();
    await pacer.ready();
    // One left when a was counted; the other request in flight may take it: nothing is left to send now.
    a(answer(1, 1));
    await pacer.ready();
    expect(clock.now()).toBe(1_000);
  });

  it('goes on, one request at a time, when requests fail without an answer after the window was spent', async () => {
    const clock = fakeClock();
    const pacer = createServerPacer(clock);
    (await pacer.ready())(answer(1, 1, 2));
    for (let i = 0; i < 6; i += 1) (await pacer.ready())();
    // Two a window (the policy's quota), each window waited for in turn: none stuck, none beyond the quota.
    expect(clock.now()).toBe(3_000);
  });

  it('does not pace a service that sends no RateLimit field', async () => {
    const pacer = createServerPacer(fakeClock());
    (await pacer.ready())({ status: 200, rateLimit: undefined, policy: undefined });
    await Promise.all([pacer.ready(), pacer.ready(), pacer.ready()]);
  });
});
