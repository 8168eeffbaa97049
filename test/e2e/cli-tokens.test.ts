import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliSandbox, type CliSandbox } from '../support/cli-sandbox.js';
import { startService, type RunningService } from '../support/service.js';

/** `tokens create | list | revoke` and `whoami`'s scopes: the built binary against the real service (docs/api.md "Token scopes"). */

const EMAIL = 'tokens@example.test';
const DAY_MS = 86_400_000;

let service: RunningService;
let adminToken: string;
let cli: CliSandbox;

beforeAll(async () => {
  service = await startService();
  adminToken = await service.createUser(EMAIL, { credits: 5 });
  cli = await createCliSandbox({ MAILVERIFY_BASE_URL: service.baseUrl, MAILVERIFY_TOKEN: adminToken });
});

afterAll(async () => {
  await cli?.close();
  await service?.stop();
});

async function post(path: string, token: string, body: unknown) {
  const response = await request(`${service.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, body: (await response.body.json()) as Record<string, unknown> };
}

describe('mailverify tokens', () => {
  let created: string;
  let id: string;

  it('creates a verify-only token for 90 days and prints only the token on stdout', async () => {
    const before = Date.now();
    const run = await cli.run(['tokens', 'create', '--name', 'web form', '--scope', 'verify', '--expires', '90d']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^mv_[0-9a-f]{64}\n$/);
    created = run.stdout.trim();
    expect(run.stderr).toContain('scopes verify');
    expect(run.stderr).not.toContain(created);

    // What the service made of it: the scope holds, the expiry is 90 days on.
    const bulk = await post('/v1/bulk-verify', created, { emails: ['a@example.test'] });
    expect(bulk.status).toBe(403);
    expect(bulk.body).toMatchObject({ code: 'insufficient_scope', scope: 'bulk' });

    const whoami = await cli.run(['whoami', '--json'], { env: { MAILVERIFY_TOKEN: created } });
    expect(whoami.code, whoami.stderr).toBe(0);
    const { token } = JSON.parse(whoami.stdout) as { token: { id: string; kind: string; scopes: string[]; expiresAt: string } };
    expect(token).toMatchObject({ kind: 'api', name: 'web form', scopes: ['verify'] });
    const lifetime = Date.parse(token.expiresAt) - before;
    expect(lifetime).toBeGreaterThanOrEqual(90 * DAY_MS);
    expect(lifetime).toBeLessThan(90 * DAY_MS + 60_000);
    id = token.id;

    const human = await cli.run(['whoami'], { env: { MAILVERIFY_TOKEN: created } });
    expect(human.stdout).toMatch(/scopes\s+verify\n/);
    expect(human.stdout).toContain(token.expiresAt);
  });

  it('refuses an unknown scope and a malformed expiry before asking the service', async () => {
    const scope = await cli.run(['tokens', 'create', '--scope', 'admin']);
    expect(scope.code).toBe(2);
    expect(scope.stderr).toContain('"admin" is no scope');
    const expires = await cli.run(['tokens', 'create', '--expires', 'soon']);
    expect(expires.code).toBe(2);
    expect(expires.stderr).toContain('--expires');
  });

  it('says which scope a narrow token lacks, with what to do', async () => {
    const list = await cli.run(['tokens', 'list'], { env: { MAILVERIFY_TOKEN: created } });
    expect(list.code).not.toBe(0);
    expect(list.stderr).toContain('insufficient_scope');
    expect(list.stderr).toContain('"account"');
    expect(list.stderr).toContain('tokens create --scope');
  });

  it('lists the token with its scopes and expiry, and revokes it', async () => {
    const list = await cli.run(['tokens', 'list']);
    expect(list.code, list.stderr).toBe(0);
    const line = list.stdout.split('\n').find((each) => each.startsWith(id));
    expect(line).toMatch(/web form {2}verify {2}expires \d{4}-/);
    expect(list.stdout).not.toContain(created);

    const json = JSON.parse((await cli.run(['tokens', 'list', '--json'])).stdout) as Array<{ id: string; scopes: string[]; expiresAt: string | null }>;
    expect(json.find((each) => each.id === id)?.scopes).toEqual(['verify']);

    const revoke = await cli.run(['tokens', 'revoke', id]);
    expect(revoke.code, revoke.stderr).toBe(0);
    expect((await post('/v1/verify', created, { email: 'a@example.test' })).status).toBe(401);
    expect((await cli.run(['tokens', 'list'])).stdout).not.toContain(id);
  });
});
