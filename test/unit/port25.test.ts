import type net from 'node:net';
import { describe, expect, it } from 'vitest';
import { DialError, type Dialer } from '../../src/engine/net/egress.js';
import { NetworkStatusBoard, type NetworkStatus } from '../../src/engine/net/network-status.js';
import { poolPort25 } from '../../src/engine/net/port25-pool.js';
import { CONFIRM_INTERVAL_MS, Port25Watch, RECHECK_MS, type CheckTarget } from '../../src/engine/net/port25.js';

type Answer = 'timeout' | 'refused' | 'ok';

/** The providers' hosts of the confirmation: no customer picks them. */
const CHECK_HOSTS: CheckTarget[] = [
  { host: 'gmail-smtp-in.l.google.com', address: '198.51.100.1' },
  { host: 'mx.outlook.test', address: '198.51.100.2' },
];
const isCheckHost = (address: string) => address.startsWith('198.51.100.');

/**
 * A watch over a scripted dialer: each call is answered as `answer` says (customers' hosts) or as
 * `checkHosts` says (the check hosts), counting the calls that reached it; a fake clock.
 */
function setUp(answer: (address: string) => Answer, options: { checkHosts?: () => Answer; targets?: () => Promise<readonly CheckTarget[]> } = {}) {
  const clock = { time: 1_000, now: () => clock.time };
  const board = new NetworkStatusBoard();
  const changes: NetworkStatus['port25'][] = [];
  board.onChange((status) => changes.push(status.port25));
  const calls: string[] = [];
  const checks = { answer: options.checkHosts ?? ((): Answer => 'ok') };
  const dial: Dialer = async (address) => {
    calls.push(address);
    const outcome = isCheckHost(address) ? checks.answer() : answer(address);
    if (outcome === 'ok') return { destroy: () => undefined } as unknown as net.Socket;
    throw new DialError(`${outcome} ${address}`, outcome === 'timeout');
  };
  const watch = new Port25Watch({ port: 25, connectTimeoutMs: 1_000, dial, checkTargets: options.targets ?? (async () => CHECK_HOSTS), board, clock });
  const checkCalls = () => calls.filter(isCheckHost).length;
  return { clock, board, changes, calls, checkCalls, checks, watch };
}

const attempt = (dial: Dialer, address: string) =>
  dial(address, 25, 1_000).then(
    () => 'ok',
    (error: Error) => error.message,
  );
/** The port's verdict on a dial that timed out (DialError.portCheck), boxed so that awaiting the dial does not await it. */
async function timedOutVerdict(dial: Dialer, address: string): Promise<{ verdict: Promise<string | null> }> {
  const error = await dial(address, 25, 1_000).then(
    () => new Error(`${address} did not time out`),
    (failure: DialError) => failure,
  );
  if (!(error instanceof DialError) || error.portCheck === undefined) throw new Error(`no verdict awaited: ${error.message}`);
  return { verdict: error.portCheck };
}
const customerHosts = (first: number, count: number) => Array.from({ length: count }, (_, index) => `192.0.2.${first + index}`);

describe('Port25Watch', () => {
  it("makes timeouts at three customers' hosts only a suspicion, each its own host's timeout, cleared when the check hosts answer", async () => {
    const { board, changes, checkCalls, watch } = setUp(() => 'timeout');
    const answers = [];
    for (const address of customerHosts(1, 4)) answers.push(await attempt(watch.dial, address));
    // Every one is that host's own timeout, never "port blocked".
    expect(answers).toEqual(customerHosts(1, 4).map((address) => `timeout ${address}`));
    expect(changes[0]).toEqual({ state: 'suspect', reason: 'connections to 3 mail hosts (192.0.2.1, 192.0.2.2, 192.0.2.3) timed out and none got through' });
    await watch.confirm();
    expect(checkCalls()).toBe(CHECK_HOSTS.length);
    expect(board.status().port25).toEqual({ state: 'open' });
    expect(changes.map((change) => change.state)).toEqual(['suspect', 'open']);
  });

  it('calls the port blocked only when the check hosts time out too, then fails at once without dialling', async () => {
    const { board, calls, checkCalls, watch } = setUp(() => 'timeout', { checkHosts: () => 'timeout' });
    for (const address of customerHosts(1, 3)) await attempt(watch.dial, address);
    await watch.confirm();
    expect(board.status().port25.state).toBe('blocked');
    // The operator's reason names the check hosts, and no customer's host.
    expect(board.status().port25.reason).toMatch(
      /^outbound port 25 appears blocked on this network: none of the check hosts answered \(gmail-smtp-in\.l\.google\.com \(198\.51\.100\.1\), mx\.outlook\.test \(198\.51\.100\.2\) all timed out\)/,
    );
    expect(board.status().port25.reason).not.toMatch(/192\.0\.2\./);
    const dialled = calls.length;
    expect(await attempt(watch.dial, '192.0.2.9')).toMatch(/^outbound port 25 appears blocked/);
    expect(calls).toHaveLength(dialled);
    expect(checkCalls()).toBe(CHECK_HOSTS.length);
  });

  it('while blocked, tries the check hosts again once per recheck interval, and lets connections through once they answer', async () => {
    const { clock, board, calls, checkCalls, checks, watch } = setUp(() => 'ok', { checkHosts: () => 'timeout' });
    await watch.confirm(); // the start-up check
    expect(board.status().port25.state).toBe('blocked');
    expect(await attempt(watch.dial, '192.0.2.1')).toMatch(/appears blocked/);
    clock.time += RECHECK_MS;
    expect(await attempt(watch.dial, '192.0.2.2')).toMatch(/appears blocked/);
    expect(checkCalls()).toBe(2 * CHECK_HOSTS.length);
    expect(await attempt(watch.dial, '192.0.2.3')).toMatch(/appears blocked/);
    expect(checkCalls()).toBe(2 * CHECK_HOSTS.length);
    checks.answer = () => 'ok';
    clock.time += RECHECK_MS;
    expect(await attempt(watch.dial, '192.0.2.4')).toBe('ok');
    expect(board.status().port25.state).toBe('open');
    expect(calls.filter((address) => !isCheckHost(address))).toEqual(['192.0.2.4']);
  });

  it('runs one confirmation at a time, and at most one per interval however many timeouts come', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<readonly CheckTarget[]>((resolve) => (release = () => resolve(CHECK_HOSTS)));
    let asked = 0;
    const { clock, board, checkCalls, watch } = setUp(() => 'timeout', {
      targets: () => {
        asked += 1;
        return asked === 1 ? held : Promise.resolve(CHECK_HOSTS);
      },
    });
    for (const address of customerHosts(1, 10)) await attempt(watch.dial, address);
    expect(asked).toBe(1);
    release();
    await watch.confirm();
    expect(board.status().port25.state).toBe('open');
    expect(checkCalls()).toBe(CHECK_HOSTS.length);
    // Suspect again soon after: no new confirmation before the interval is over.
    clock.time += 1;
    for (const address of customerHosts(20, 5)) await attempt(watch.dial, address);
    expect(board.status().port25.state).toBe('suspect');
    expect(asked).toBe(1);
    clock.time += CONFIRM_INTERVAL_MS;
    await attempt(watch.dial, '192.0.2.30');
    await watch.confirm();
    expect(asked).toBe(2);
    expect(board.status().port25.state).toBe('open');
  });

  it('stays suspect, never blocked, when no check host can be tried', async () => {
    const { board, watch } = setUp(() => 'timeout', { targets: async () => [{ host: 'gmail.com', unusable: 'DNS SERVFAIL' }] });
    for (const address of customerHosts(1, 3)) await attempt(watch.dial, address);
    expect(await watch.confirm()).toBe('inconclusive');
    expect(board.status().port25.state).toBe('suspect');
    expect(await attempt(watch.dial, '192.0.2.9')).toBe('timeout 192.0.2.9');
  });

  it("takes a refused connection at a check host as an answer, and does not count refusals at customers' hosts", async () => {
    const { board, watch } = setUp((address) => (address === '192.0.2.8' ? 'refused' : 'timeout'), { checkHosts: () => 'refused' });
    for (const address of ['192.0.2.8', '192.0.2.1', '192.0.2.2']) await attempt(watch.dial, address);
    expect(board.status().port25.state).toBe('unknown');
    expect(await watch.confirm()).toBe('open');
  });

  it('gives the timeouts before a check its verdict: blocked when the check hosts time out too', async () => {
    const { watch } = setUp(() => 'timeout', { checkHosts: () => 'timeout' });
    const verdicts = [];
    for (const address of customerHosts(1, 3)) verdicts.push((await timedOutVerdict(watch.dial, address)).verdict);
    // The first two timed out before the suspicion; the third started the check. All learn what it found.
    for (const verdict of await Promise.all(verdicts)) expect(verdict).toMatch(/^outbound port 25 appears blocked on this network: none of the check hosts/);
  });

  it("lets a timeout stand as the host's own when the check hosts answer, or a connection gets through", async () => {
    const { watch } = setUp((address) => (address === '192.0.2.9' ? 'ok' : 'timeout'));
    const before = await timedOutVerdict(watch.dial, '192.0.2.1');
    expect(await attempt(watch.dial, '192.0.2.9')).toBe('ok');
    expect(await before.verdict).toBeNull();
    // Three hosts more: a suspicion, whose check hosts answer.
    const checked = [];
    for (const address of customerHosts(2, 3)) checked.push((await timedOutVerdict(watch.dial, address)).verdict);
    expect(await Promise.all(checked)).toEqual([null, null, null]);
  });

  it('starts a check itself when a timeout waited a connect timeout with none under way', async () => {
    const { checkCalls, watch } = setUp(() => 'timeout', { checkHosts: () => 'timeout' });
    const { verdict } = await timedOutVerdict(watch.dial, '192.0.2.1');
    expect(checkCalls()).toBe(0);
    expect(await verdict).toMatch(/appears blocked/);
    expect(checkCalls()).toBe(CHECK_HOSTS.length);
  });

  it('does not count a timeout of a connection during which another got through', async () => {
    const clock = { time: 1_000, now: () => clock.time };
    const board = new NetworkStatusBoard();
    const held: (() => void)[] = [];
    const watch = new Port25Watch({
      port: 25,
      connectTimeoutMs: 1_000,
      board,
      clock,
      checkTargets: async () => [],
      dial: async (address) => {
        if (address === '192.0.2.9') return {} as net.Socket;
        // Each timeout comes when the test says so, as a slow SYN would.
        await new Promise<void>((resolve) => held.push(resolve));
        throw new DialError(`timeout ${address}`, true);
      },
    });
    const slow = customerHosts(1, 3).map((address) => attempt(watch.dial, address));
    clock.time += 1;
    await attempt(watch.dial, '192.0.2.9');
    clock.time += 1;
    for (const release of held.splice(0)) release();
    await Promise.all(slow);
    expect(board.status().port25.state).toBe('open');
    // Connections started after the success count again.
    const later = customerHosts(4, 3).map((address) => attempt(watch.dial, address));
    clock.time += 1;
    for (const release of held.splice(0)) release();
    await Promise.all(later);
    expect(board.status().port25.state).toBe('suspect');
  });
});

describe('poolPort25: the node made of its egresses', () => {
  const blocked = { state: 'blocked' as const, reason: 'outbound port 25 appears blocked' };
  it('is the one egress as it is', () => {
    expect(poolPort25([{ key: 'default', status: blocked }])).toEqual(blocked);
  });
  it('is blocked only when every egress is, and suspect (naming them) while some are', () => {
    expect(
      poolPort25([
        { key: '192.0.2.1', status: blocked },
        { key: '192.0.2.2', status: { state: 'open' } },
      ]),
    ).toEqual({
      state: 'suspect',
      reason: 'egress 192.0.2.1: blocked (outbound port 25 appears blocked)',
    });
    expect(
      poolPort25([
        { key: '192.0.2.1', status: blocked },
        { key: '192.0.2.2', status: blocked },
      ]).state,
    ).toBe('blocked');
    expect(
      poolPort25([
        { key: '192.0.2.1', status: { state: 'unknown' } },
        { key: '192.0.2.2', status: { state: 'open' } },
      ]),
    ).toEqual({ state: 'open' });
    expect(
      poolPort25([
        { key: '192.0.2.1', status: { state: 'unknown' } },
        { key: '192.0.2.2', status: { state: 'unknown' } },
      ]),
    ).toEqual({ state: 'unknown' });
  });
});
