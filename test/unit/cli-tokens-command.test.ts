import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as create from '../../src/cli/commands/tokens/create.js';
import * as revoke from '../../src/cli/commands/tokens/revoke.js';
import { NotAuthenticatedError, UsageError } from '../../src/cli/output/errors.js';
import { memoryIo, parseCommandLine } from '../support/cli-parse.js';

/** `tokens create|revoke`: scopes and expiry checked before the service is asked. */

const createOptions = (...argv: string[]) => create.parse(parseCommandLine(['tokens', 'create', ...argv]));

describe('tokens create: parse', () => {
  it('asks for every scope and no expiry unless told', () => {
    expect(createOptions()).toMatchObject({ name: undefined, scopes: undefined, expiresIn: undefined });
  });

  it('takes scopes repeated or as comma lists, once each, and the expiry in seconds', () => {
    expect(createOptions('--name', 'ci', '--scope', 'verify', '--scope', 'bulk,verify', '--expires', '90d')).toMatchObject({
      name: 'ci',
      scopes: ['verify', 'bulk'],
      expiresIn: 7_776_000,
    });
    expect(createOptions('--scope', 'results', 'account').scopes).toEqual(['results', 'account']);
  });

  it.each([
    [['--scope', 'verify,admin'], '--scope: "admin" is no scope; the scopes are verify, bulk, results, account, evidence'],
    [['--expires', 'soon'], '--expires: "soon" is no duration'],
    [['--expires', '1500ms'], '--expires: give a whole number of seconds of at least 1s, such as 90d'],
  ])('refuses %j (exit 2)', (argv, message) => {
    expect(() => createOptions(...argv)).toThrow(UsageError);
    expect(() => createOptions(...argv)).toThrow(message);
  });
});

describe('tokens revoke: run', () => {
  it('wants a token (exit 4) before it asks the service', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailverify-tokens-'));
    try {
      const { io, stderr } = memoryIo({ MAILVERIFY_CONFIG_DIR: dir, MAILVERIFY_BASE_URL: 'http://127.0.0.1:9' });
      const options = revoke.parse(parseCommandLine(['tokens', 'revoke', 'tok_1']));
      expect(options.id).toBe('tok_1');
      await expect(revoke.run(options, io)).rejects.toThrow(NotAuthenticatedError);
      expect(stderr()).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
