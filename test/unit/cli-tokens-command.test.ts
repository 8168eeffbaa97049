import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as create from '../../src/cli/commands/tokens/create.js';
import * as list from '../../src/cli/commands/tokens/list.js';
import * as revoke from '../../src/cli/commands/tokens/revoke.js';
import { NotAuthenticatedError, UsageError } from '../../src/cli/output/errors.js';
import { hashApiToken } from '../../src/server/auth/api-tokens.js';
import { memoryIo, parseCommandLine } from '../support/cli-parse.js';
import { serviceForFile } from '../support/command-service.js';

/** `tokens create|list|revoke`: scopes and expiry checked before the service is asked, then a token's life on the real service. */

const fixture = serviceForFile('ann@example.com');

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

describe('tokens: run', () => {
  it('creates a token (only the secret on stdout), lists it without its secret, and revokes it', async () => {
    const { login: ann, service } = fixture;
    const created = memoryIo(ann.env);
    await create.run(createOptions('--name', 'ci', '--scope', 'verify,bulk', '--expires', '1d'), created.io);
    const secret = created.stdout().trim();
    expect(created.stdout()).toMatch(/^mv_\S+\n$/);
    const stored = await service.app.store.tokens.findApiTokenByHash(hashApiToken(secret));
    expect(stored).toMatchObject({ userId: ann.user.id, name: 'ci' });
    expect(created.stderr()).toMatch(
      new RegExp(`^token ${stored!.id} "ci" created: scopes verify, bulk, expires \\S+; the token above is not shown again\\n$`),
    );

    expect(list.parse(parseCommandLine(['tokens', 'list']))).toMatchObject({ program: { profile: undefined } });
    const listed = memoryIo(ann.env);
    await list.run(list.parse(parseCommandLine(['tokens', 'list'])), listed.io);
    expect(listed.stdout()).toMatch(new RegExp(`^${stored!.id}  ci  verify,bulk  expires \\S+  last used \\S+$`, 'm'));
    expect(listed.stdout()).not.toContain(secret);

    const revoked = memoryIo(ann.env);
    await revoke.run(revoke.parse(parseCommandLine(['tokens', 'revoke', stored!.id])), revoked.io);
    expect(await service.app.store.tokens.findApiTokenByHash(hashApiToken(secret))).toBeUndefined();
    const json = memoryIo(ann.env, { json: true });
    await list.run(list.parse(parseCommandLine(['tokens', 'list'])), json.io);
    expect((JSON.parse(json.stdout()) as { id: string }[]).map((token) => token.id)).not.toContain(stored!.id);
  });
});
