import { describe, expect, it } from 'vitest';
import { SessionSharing, type SessionTaker } from '../../src/engine/smtp/session-sharing.js';

const HOST = { hostname: 'mx.shared.test', address: '192.0.2.25' };
const OTHER_HOST = { hostname: 'mx.other.test', address: '192.0.2.26' };

/** A domain's stand-in: queued work at one host, some sessions already asking it. */
function taker(name: string, sessions: number, at = HOST): SessionTaker & { name: string; queued: boolean } {
  return {
    name,
    sessions,
    queued: true,
    wantsSessionAt(target) {
      return this.queued && target.address === at.address && target.hostname === at.hostname;
    },
  };
}

describe('SessionSharing', () => {
  it('hands a session to the domain at the same host and share with the fewest sessions, never back to the giver', () => {
    const sharing = new SessionSharing<ReturnType<typeof taker>>();
    const [giver, busy, idle, elsewhere] = [taker('giver', 1), taker('busy', 2), taker('idle', 0), taker('elsewhere', 0, OTHER_HOST)];
    for (const each of [giver, busy, idle]) sharing.offer('alice', HOST, each);
    sharing.offer('alice', OTHER_HOST, elsewhere);
    sharing.offer('bob', HOST, taker('bob', 0));
    expect(sharing.takerFor('alice', HOST, giver)?.name).toBe('idle');
    idle.queued = false;
    expect(sharing.takerFor('alice', HOST, giver)?.name).toBe('busy');
    sharing.withdraw('alice', HOST, busy);
    expect(sharing.takerFor('alice', HOST, giver)).toBeUndefined();
    expect(sharing.takerFor('bob', HOST, giver)?.name).toBe('bob');
  });
});
