import type net from 'node:net';
import { describe, expect, it } from 'vitest';
import { DialError, type Dialer } from '../../src/engine/net/egress.js';
import { NetworkStatusBoard, type NetworkStatus } from '../../src/engine/net/network-status.js';
import { Port25Watch, RECHECK_MS } from '../../src/engine/net/port25.js';

/** A dialer whose every call is answered as `answer` says, counting the calls that reached it. */
function scriptedDialer(answer: (address: string) => 'timeout' | 'refused' | 'ok') {
  const calls: string[] = [];
  const dial: Dialer = async (address) => {
    calls.push(address);
    const outcome = answer(address);
    if (outcome === 'ok') return {} as net.Socket;
    throw new DialError(`${outcome} ${address}`, outcome === 'timeout');
  };
  return { dial, calls };
}

function setUp(answer: (address: string) => 'timeout' | 'refused' | 'ok') {
  const clock = { time: 1_000, now: () => clock.time };
  const board = new NetworkStatusBoard();
  const changes: NetworkStatus[] = [];
  board.onChange((status) => changes.push(status));
  const scripted = scriptedDialer(answer);
  const dial = new Port25Watch(25, board, clock).watch(scripted.dial);
  return { clock, board, changes, calls: scripted.calls, dial };
}

const attempt = (dial: Dialer, address: string) => dial(address, 25, 1_000).then(() => 'ok', (error: Error) => error.message);

describe('Port25Watch', () => {
  it('calls the port blocked after timeouts at three hosts, then fails at once without dialling', async () => {
    const { board, changes, calls, dial } = setUp(() => 'timeout');
    for (const address of ['192.0.2.1', '192.0.2.1', '192.0.2.2']) await attempt(dial, address);
    expect(board.status().port25.state).toBe('unknown');
    await attempt(dial, '192.0.2.3');
    expect(board.status().port25.state).toBe('blocked');
    expect(changes).toHaveLength(1);
    expect(await attempt(dial, '192.0.2.4')).toMatch(/^outbound port 25 appears blocked on this network: connections to 3 mail hosts \(192\.0\.2\.1, 192\.0\.2\.2, 192\.0\.2\.3\)/);
    expect(calls).toHaveLength(4);
  });

  it('tries one real connection per recheck interval, and opens again when it gets through', async () => {
    let network: 'timeout' | 'ok' = 'timeout';
    const { clock, board, calls, dial } = setUp(() => network);
    for (const address of ['192.0.2.1', '192.0.2.2', '192.0.2.3']) await attempt(dial, address);
    clock.time += RECHECK_MS;
    await attempt(dial, '192.0.2.4');
    expect(calls).toHaveLength(4);
    await attempt(dial, '192.0.2.5');
    expect(calls).toHaveLength(4);
    network = 'ok';
    clock.time += RECHECK_MS;
    expect(await attempt(dial, '192.0.2.6')).toBe('ok');
    expect(board.status().port25.state).toBe('open');
    expect(await attempt(dial, '192.0.2.7')).toBe('ok');
  });

  it('does not count refusals', async () => {
    const { board, dial } = setUp((address) => (address === '192.0.2.8' ? 'refused' : 'timeout'));
    for (const address of ['192.0.2.8', '192.0.2.1', '192.0.2.2']) await attempt(dial, address);
    expect(board.status().port25.state).toBe('unknown');
  });

  it('does not count a timeout of a connection during which another got through', async () => {
    const clock = { time: 1_000, now: () => clock.time };
    const board = new NetworkStatusBoard();
    const held: (() => void)[] = [];
    const dial = new Port25Watch(25, board, clock).watch(async (address) => {
      if (address === '192.0.2.9') return {} as net.Socket;
      // Each timeout comes when the test says so, as a slow SYN would.
      await new Promise<void>((resolve) => held.push(resolve));
      throw new DialError(`timeout ${address}`, true);
    });
    const slow = ['192.0.2.1', '192.0.2.2', '192.0.2.3'].map((address) => attempt(dial, address));
    clock.time += 1;
    await attempt(dial, '192.0.2.9');
    clock.time += 1;
    for (const release of held.splice(0)) release();
    await Promise.all(slow);
    expect(board.status().port25.state).toBe('open');
    // Connections started after the success count again.
    const later = ['192.0.2.4', '192.0.2.5', '192.0.2.6'].map((address) => attempt(dial, address));
    clock.time += 1;
    for (const release of held.splice(0)) release();
    await Promise.all(later);
    expect(board.status().port25.state).toBe('blocked');
  });
});
