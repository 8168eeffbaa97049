/**
 * Scoped, expiring API tokens (docs/api.md "Token scopes") over real HTTP, with the real engine on
 * loopback DNS and SMTP fixtures behind POST /v1/verify.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, MAIL_DOMAIN, startMailWorld, startTestApp, type MailWorld, type TestApp } from '../support/service-app.js';

const MAILBOX = `ann@${MAIL_DOMAIN}`;

describe('token scopes and expiry', () => {
  let world: MailWorld;
  let app: TestApp;
  /** A token with every scope, as `admin token create` makes. */
  let full: string;

  beforeAll(async () => {
    world = await startMailWorld({ mailboxes: [MAILBOX] });
    app = await startTestApp({ world });
    full = (await app.createUser('scopes@example.org', { credits: 20 })).token;
  });
  afterAll(async () => {
    await app?.close();
    await world?.close();
  });

  const create = (json: unknown) => app.call('POST', '/v1/tokens', { token: full, json });

  it('lets a verify-only token verify, and refuses it bulk jobs, results and the account with 403 naming the scope', async () => {
    const created = await create({ name: 'form', scopes: ['verify'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'form', scopes: ['verify'], expiresAt: null });
    const token = created.body.token as string;

    const verified = await app.call('POST', '/v1/verify', { token, json: { email: MAILBOX } });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body.result).toBe('valid');

    const bulk = await app.call('POST', '/v1/bulk-verify', { token, json: { emails: [MAILBOX] } });
    expectProblem(bulk, 403, 'insufficient_scope');
    expect(bulk.body.scope).toBe('bulk');
    expect(bulk.body.detail).toContain('"bulk"');
    const results = await app.call('GET', '/v1/bulk-verify/some-job', { token });
    expectProblem(results, 403, 'insufficient_scope');
    expect(results.body.scope).toBe('results');
    for (const [method, path] of [
      ['GET', '/v1/tokens'],
      ['POST', '/v1/tokens'],
      ['GET', '/v1/webhooks'],
    ] as const) {
      const refused = await app.call(method, path, { token, json: method === 'POST' ? { name: 'escalate' } : undefined });
      expectProblem(refused, 403, 'insufficient_scope');
      expect(refused.body.scope).toBe('account');
    }

    // Any token may ask what it is.
    const account = await app.call('GET', '/v1/account', { token });
    expect(account.status).toBe(200);
    expect(account.body.token).toEqual({ kind: 'api', id: created.body.id, name: 'form', scopes: ['verify'], expiresAt: null, test: false });
  });

  it('lets a bulk+results token run a job and read it, but not verify one address', async () => {
    const token = (await create({ name: 'pipeline', scopes: ['results', 'bulk'] })).body.token as string;
    const submitted = await app.call('POST', '/v1/bulk-verify', { token, json: { emails: [MAILBOX] } });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    const job = await app.call('GET', `/v1/bulk-verify/${submitted.body.jobId as string}`, { token });
    expect(job.status).toBe(200);
    const verify = await app.call('POST', '/v1/verify', { token, json: { email: MAILBOX } });
    expectProblem(verify, 403, 'insufficient_scope');
    expect(verify.body.scope).toBe('verify');
  });

  it('answers 401 saying so for a token past its expiry, and lists it with its expiry', async () => {
    const created = await create({ name: 'short', scopes: ['verify'], expiresIn: 1 });
    expect(created.status).toBe(201);
    const expiresAt = created.body.expiresAt as string;
    expect(Date.parse(expiresAt) - Date.now()).toBeLessThanOrEqual(1_000);
    const token = created.body.token as string;
    // Used once while alive, so the authenticator has it cached: expiry must still apply.
    expect((await app.call('GET', '/v1/account', { token })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now()) + 50));
    const refused = await app.call('POST', '/v1/verify', { token, json: { email: MAILBOX } });
    expectProblem(refused, 401, 'unauthorized');
    expect(refused.body.detail).toContain(`expired at ${expiresAt}`);

    const listed = (await app.call('GET', '/v1/tokens', { token: full })).body.tokens as Array<Record<string, unknown>>;
    expect(listed.find((each) => each.id === created.body.id)).toMatchObject({ scopes: ['verify'], expiresAt });
  });

  it('takes expiresAt as a time to come, and gives a token without scopes every scope', async () => {
    const at = new Date(Date.now() + 86_400_000).toISOString();
    const created = await create({ name: 'day', expiresAt: at });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ scopes: ['verify', 'bulk', 'results', 'account', 'evidence'], expiresAt: at });
    expect((await app.call('GET', '/v1/tokens', { token: created.body.token as string })).status).toBe(200);
  });

  it.each([
    ['no scope', { scopes: [] }],
    ['an unknown scope', { scopes: ['verify', 'admin'] }],
    ['a scope that is not a string', { scopes: [1] }],
    ['a time past', { expiresAt: '2020-01-01T00:00:00Z' }],
    ['a time that is no time', { expiresAt: 'next tuesday' }],
    ['a date without a time', { expiresAt: '2099-01-01' }],
    ['both expiresAt and expiresIn', { expiresAt: '2099-01-01T00:00:00Z', expiresIn: 60 }],
    ['expiresIn as text', { expiresIn: '90d' }],
    ['expiresIn of 0', { expiresIn: 0 }],
    ['expiresIn over ten years', { expiresIn: 400_000_000 }],
  ])('refuses %s with 400 problem+json', async (_case, fields) => {
    expectProblem(await create({ name: 'bad', ...fields }), 400, 'invalid_request');
  });

  describe('a token made by a scoped, expiring token', () => {
    /** A token with `scopes` that expires in 60 s, the token that makes others here. */
    async function parent(scopes: string[]): Promise<{ token: string; expiresAt: string }> {
      const made = await create({ name: 'parent', scopes, expiresIn: 60 });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      return made.body as { token: string; expiresAt: string };
    }
    const createWith = (token: string, json: object) => app.call('POST', '/v1/tokens', { token, json: { name: 'child', ...json } });

    it.each([
      ['every scope for ever (nothing said)', {}, ['verify', 'bulk', 'results', 'evidence', 'expiry']],
      ['a scope it lacks', { scopes: ['bulk'], expiresIn: 30 }, ['bulk']],
      ['no expiry', { scopes: ['account'] }, ['expiry']],
      ['a longer life', { scopes: ['account'], expiresIn: 3600 }, ['expiry']],
      ['a scope it lacks and a later expiresAt', { scopes: ['results'], expiresAt: '2030-01-01T00:00:00Z' }, ['results', 'expiry']],
    ])('refuses %s with 403 naming what is beyond its grant', async (_case, fields, beyond) => {
      const { token } = await parent(['account']);
      const refused = await createWith(token, fields);
      expectProblem(refused, 403, 'beyond_token_grant');
      expect(refused.body.beyondGrant).toEqual(beyond);
      for (const scope of beyond.filter((each) => each !== 'expiry')) expect(refused.body.detail).toContain(scope);
      expect((await app.call('GET', '/v1/tokens', { token })).body.tokens.map((each: { name: string }) => each.name)).not.toContain('child');
    });

    it('makes a narrower, shorter-lived one (201), and one exactly as wide and as long-lived', async () => {
      const { token, expiresAt } = await parent(['verify', 'results', 'account']);
      const narrower = await createWith(token, { scopes: ['verify'], expiresIn: 30 });
      expect(narrower.status, JSON.stringify(narrower.body)).toBe(201);
      expect(narrower.body.scopes).toEqual(['verify']);
      expect(Date.parse(narrower.body.expiresAt as string)).toBeLessThan(Date.parse(expiresAt));
      const same = await createWith(token, { scopes: ['verify', 'results', 'account'], expiresAt });
      expect(same.status, JSON.stringify(same.body)).toBe(201);
      expect(same.body).toMatchObject({ scopes: ['verify', 'results', 'account'], expiresAt });
      // The child of a child is held to its own parent's grant in turn.
      expectProblem(await createWith(same.body.token as string, { scopes: ['bulk'], expiresIn: 10 }), 403, 'beyond_token_grant');
    });
  });

  it("keeps full access for a login JWT and documents each route's scope in the OpenAPI document", async () => {
    const { token } = await app.createUser('jwt@example.org', { credits: 1, password: 'a long enough password' }).then(async () => {
      const login = await app.call('POST', '/v1/auth/login', { json: { email: 'jwt@example.org', password: 'a long enough password' } });
      return login.body as { token: string };
    });
    const account = await app.call('GET', '/v1/account', { token });
    expect(account.body.token).toMatchObject({ kind: 'login', scopes: ['verify', 'bulk', 'results', 'account', 'evidence'] });
    expect((await app.call('GET', '/v1/webhooks', { token })).status).toBe(200);

    const document = (await app.call('GET', '/v1/openapi.json')).body as {
      paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>>;
    };
    expect(document.paths['/v1/verify']!.post!.security).toEqual([{ bearer: ['verify'] }]);
    expect(document.paths['/v1/bulk-verify']!.post!.security).toEqual([{ bearer: ['bulk'] }]);
    expect(document.paths['/v1/bulk-verify/{job_id}']!.get!.security).toEqual([{ bearer: ['results'] }]);
    expect(document.paths['/v1/tokens']!.post!.security).toEqual([{ bearer: ['account'] }]);
    expect(document.paths['/v1/account']!.get!.security).toEqual([{ bearer: [] }]);
    expect(document.paths['/v1/verify']!.post!.responses['403']).toBeDefined();
  });
});
