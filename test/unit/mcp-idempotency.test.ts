import { describe, expect, it } from 'vitest';
import { callKeys } from '../../src/cli/commands/mcp/idempotency.js';

/** The Idempotency-Key of an MCP tool call: the same call is the same key within a session, never across sessions. */
describe('callKeys', () => {
  it('gives the same call (its arguments in any order) the same key, and another call another', () => {
    const keys = callKeys('salt-a');
    const first = keys('submit_list', { addresses: ['a@example.com', 'b@example.com'], name: 'x', fresh: false });
    expect(keys('submit_list', { fresh: false, name: 'x', addresses: ['a@example.com', 'b@example.com'] })).toBe(first);
    expect(keys('submit_list', { addresses: ['b@example.com', 'a@example.com'], name: 'x', fresh: false })).not.toBe(first);
    expect(keys('submit_list', { addresses: ['a@example.com', 'b@example.com'], name: 'x', fresh: true })).not.toBe(first);
    expect(keys('verify_email', { email: 'a@example.com', fresh: false })).not.toBe(keys('explain_email', { email: 'a@example.com', fresh: false }));
    // An argument left out is the same as one given as undefined.
    expect(keys('submit_list', { addresses: ['a@example.com', 'b@example.com'], name: 'x', fresh: false, wait: undefined })).toBe(first);
    expect(first).toMatch(/^mcp-[0-9a-f]{64}$/);
  });

  it('differs between sessions, and yields to a key the caller gives', () => {
    const args = { email: 'a@example.com', fresh: false };
    expect(callKeys('salt-a')('verify_email', args)).not.toBe(callKeys('salt-b')('verify_email', args));
    expect(callKeys()('verify_email', args)).not.toBe(callKeys()('verify_email', args));
    expect(callKeys('salt-a')('verify_email', args, 'retry-7')).toBe('retry-7');
  });
});
