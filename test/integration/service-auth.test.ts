/**
 * Authentication and per-user rate limits (docs/api.md "Conventions" and "Limits and headers") over real HTTP.
 */
import { SignJWT } from 'jose';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS, LOGIN_FAILURES_PER_ADDRESS, LOGIN_WINDOW_SECONDS } from '../../src/server/auth/login-limit.js';
import { call, expectProblem, startMailWorld, startTestApp, type MailWorld, type Reply, type TestApp } from '../support/service-app.js';

describe('authentication', () => {
  let world: MailWorld;
  let app: TestApp;
  let token: string;
  let userId: number;
  let sessionEpoch: string;
  const password = 'a long enough password';

  beforeAll(async () => {
    world = await startMailWorld({ mailboxes: [] });
    app = await startTestApp({ world });
    const created = await app.createUser('auth@example.org', { credits: 5, password });
    token = created.token;
    userId = created.user.id;
    sessionEpoch = created.user.sessionEpoch;
  });
  afterAll(async () => {
    await app?.close();
    await world?.close();
  });

  const jwtFor = (secret: Uint8Array, sub: number, expiresAt: number) =>
    new SignJWT({ epoch: sessionEpoch })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(sub))
      .setIssuer('mailverify')
      .setIssuedAt(expiresAt - 3600)
      .setExpirationTime(expiresAt)
      .sign(secret);

  it('accepts an mv_ API token and a JWT from login on the same routes', async () => {
    const login = await app.call('POST', '/v1/auth/login', { json: { email: 'auth@example.org', password } });
    expect(login.status).toBe(200);
    for (const bearer of [token, login.body.token as string]) {
      const account = await app.call('GET', '/v1/account', { token: bearer });
      expect(account.status).toBe(200);
      expect(account.body.email).toBe('auth@example.org');
    }
  });

  it.each([
    ['no Authorization header', undefined, undefined],
    ['a Basic credential', undefined, { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
    ['a garbled token', 'garbled-token', undefined],
    ['an unknown mv_ token', `mv_${'0'.repeat(64)}`, undefined],
    ['a JWT with a broken signature', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl', undefined],
    ['an unsigned JWT (alg none)', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIiwiaXNzIjoibWFpbHZlcmlmeSIsImV4cCI6OTk5OTk5OTk5OX0.', undefined],
    ['"Bearer" without a token', undefined, { authorization: 'Bearer' }],
    ['"Bearer " and blanks', undefined, { authorization: 'Bearer   ' }],
    ['a token with a space inside', 'mv_ab cd', undefined],
    ['a 6,000-character token', `mv_${'a'.repeat(6_000)}`, undefined],
  ])('answers 401 problem+json for %s', async (_case, bearer, headers) => {
    for (const [method, path] of [
      ['GET', '/v1/account'],
      ['POST', '/v1/verify'],
      ['GET', '/v1/bulk-verify/x/progress'],
      ['GET', '/v1/tokens'],
    ] as const) {
      const reply = await app.call(method, path, { token: bearer, headers, json: method === 'POST' ? { email: 'a@b.test' } : undefined });
      expectProblem(reply, 401, 'unauthorized');
    }
  });

  it('takes the scheme name in any letter case and the token after any blanks (RFC 9110 §11.1)', async () => {
    for (const authorization of [`bearer ${token}`, `BEARER ${token}`, `Bearer  ${token}`, `Bearer\t${token} `]) {
      expect((await app.call('GET', '/v1/account', { headers: { authorization } })).status, authorization).toBe(200);
    }
    // The bare token without a scheme is not a bearer credential.
    expectProblem(await app.call('GET', '/v1/account', { headers: { authorization: token } }), 401, 'unauthorized');
  });

  it('answers 401 for an expired JWT and for one signed with another secret', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await jwtFor(app.jwtSecret, userId, now - 10);
    expectProblem(await app.call('GET', '/v1/account', { token: expired }), 401, 'unauthorized');
    const forged = await jwtFor(new Uint8Array(32).fill(7), userId, now + 3600);
    expectProblem(await app.call('GET', '/v1/account', { token: forged }), 401, 'unauthorized');
    const fresh = await jwtFor(app.jwtSecret, userId, now + 3600);
    expect((await app.call('GET', '/v1/account', { token: fresh })).status).toBe(200);
  });

  it('answers 401 for a revoked mv_ token at once', async () => {
    const created = await app.call('POST', '/v1/tokens', { token, json: { name: 'to revoke' } });
    expect((await app.call('GET', '/v1/account', { token: created.body.token })).status).toBe(200);
    expect((await app.call('DELETE', `/v1/tokens/${created.body.id}`, { token })).status).toBe(204);
    expectProblem(await app.call('GET', '/v1/account', { token: created.body.token }), 401, 'unauthorized');
  });

  it('lets login, health and the OpenAPI document through without a token', async () => {
    expect((await app.call('GET', '/healthz')).status).toBe(200);
    expect((await app.call('GET', '/v1/openapi.json')).status).toBe(200);
    expectProblem(await app.call('POST', '/v1/auth/login', { json: { email: 'auth@example.org', password: 'nope' } }), 401, 'unauthorized');
  });
});

describe('rate limits', () => {
  let world: MailWorld;
  let app: TestApp;

  beforeAll(async () => {
    world = await startMailWorld({ mailboxes: [] });
    app = await startTestApp({ world });
  });
  afterAll(async () => {
    await app?.close();
    await world?.close();
  });

  it('answers a burst over the limit with 429 and Retry-After while another user is unaffected', async () => {
    // An hour-long window, so the burst cannot straddle two windows.
    const limits = { credits: 0, rateLimit: 5, windowSeconds: 3600 };
    const busy = await app.createUser('busy@example.org', limits);
    const calm = await app.createUser('calm@example.org', limits);

    const [burst, calmReplies] = await Promise.all([
      Promise.all(Array.from({ length: 12 }, () => app.call('GET', '/v1/account', { token: busy.token }))),
      Promise.all(Array.from({ length: 3 }, () => app.call('GET', '/v1/account', { token: calm.token }))),
    ]);
    const ok = burst.filter((reply) => reply.status === 200);
    const limited = burst.filter((reply) => reply.status === 429);
    expect(ok).toHaveLength(5);
    expect(limited).toHaveLength(7);
    for (const reply of limited) {
      expectProblem(reply, 429, 'rate_limited');
      const retryAfter = Number(reply.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect(reply.headers['ratelimit-remaining']).toBe('0');
      expect(reply.headers['ratelimit-limit']).toBe('5');
    }
    const remaining = ok.map((reply) => Number(reply.headers['ratelimit-remaining'])).sort();
    expect(remaining).toEqual([0, 1, 2, 3, 4]);
    expect(calmReplies.map((reply) => reply.status)).toEqual([200, 200, 200]);
    expect(calmReplies.map((reply) => reply.headers['retry-after'])).toEqual([undefined, undefined, undefined]);
  });

  it('counts per user, not per token: a JWT and an mv_ token of one user share one window', async () => {
    const password = 'shared window password';
    const shared = await app.createUser('shared@example.org', { credits: 0, rateLimit: 4, windowSeconds: 3600, password });
    // Login is outside the limit: it costs no request of the window.
    const login = await app.call('POST', '/v1/auth/login', { json: { email: 'shared@example.org', password } });
    const jwt = login.body.token as string;
    const statuses: number[] = [];
    for (const bearer of [shared.token, jwt, shared.token, jwt, shared.token, jwt]) {
      statuses.push((await app.call('GET', '/v1/account', { token: bearer })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });

  it('resets with the window: a user limited in a 1 s window is served again after it', async () => {
    const quick = await app.createUser('quick@example.org', { credits: 0, rateLimit: 2, windowSeconds: 1 });
    let limited: Reply | undefined;
    for (let attempt = 0; attempt < 10 && !limited; attempt++) {
      const reply = await app.call('GET', '/v1/account', { token: quick.token });
      if (reply.status === 429) limited = reply;
    }
    expect(limited?.headers['retry-after']).toBe('1');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await app.call('GET', '/v1/account', { token: quick.token })).status).toBe(200);
  });
});

describe('two instances on one store', () => {
  let world: MailWorld;
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    world = await startMailWorld({ mailboxes: [] });
    first = await startTestApp({ world });
    second = await startTestApp({ world, dataDir: first.dataDir });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await world?.close();
  });

  it('refuses a token revoked through the other instance from the next request, though it was cached', async () => {
    const { token } = await first.createUser('two-instances@example.org', { credits: 0 });
    const created = await first.call('POST', '/v1/tokens', { token, json: { name: 'revoked elsewhere' } });
    expect((await first.call('GET', '/v1/account', { token: created.body.token })).status).toBe(200);
    expect((await second.call('DELETE', `/v1/tokens/${created.body.id}`, { token })).status).toBe(204);
    expectProblem(await first.call('GET', '/v1/account', { token: created.body.token }), 401, 'unauthorized');
  });

  it('shares one budget per user: never more than the limit over both, at most one reserved slice short of it', async () => {
    // 40 per hour: each instance reserves 2 at a time (a twentieth), so one may hold 2 the other cannot use.
    const { token } = await first.createUser('shared-budget@example.org', { credits: 0, rateLimit: 40, windowSeconds: 3600 });
    const burst = [first, second].flatMap((app) => Array.from({ length: 30 }, () => app.call('GET', '/v1/account', { token })));
    const statuses = (await Promise.all(burst)).map((reply) => reply.status);
    const served = statuses.filter((status) => status === 200).length;
    expect(served).toBeLessThanOrEqual(40);
    expect(served).toBeGreaterThanOrEqual(38);
    expect(statuses.filter((status) => status === 429)).toHaveLength(60 - served);
  });
});

describe('login attempts', () => {
  let world: MailWorld;
  const apps: TestApp[] = [];
  const password = 'the right password';

  beforeAll(async () => {
    world = await startMailWorld({ mailboxes: [] });
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await world?.close();
  });

  /** A fresh service (its own store, so its own counts) with one account that has a password. */
  async function appWithAccount(email: string): Promise<TestApp> {
    const app = await startTestApp({ world });
    apps.push(app);
    await app.createUser(email, { credits: 0, password });
    return app;
  }

  /** Counts reset with the fixed window: a test starting in its last seconds waits for the next one, so that its attempts share one. */
  async function awayFromWindowEdge(): Promise<void> {
    const leftMs = LOGIN_WINDOW_SECONDS * 1000 - (Date.now() % (LOGIN_WINDOW_SECONDS * 1000));
    if (leftMs < 5_000) await new Promise((resolve) => setTimeout(resolve, leftMs + 50));
  }

  const login = (app: TestApp, email: string, attempt: string) => app.call('POST', '/v1/auth/login', { json: { email, password: attempt } });

  function expectLoginLimited(reply: Reply): void {
    expectProblem(reply, 429, 'rate_limited');
    const retryAfter = Number(reply.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(LOGIN_WINDOW_SECONDS);
  }

  it('answers 429 with Retry-After once an account had its failures from one client address, even with the right password; other accounts still log in from there', async () => {
    const app = await appWithAccount('guessed@example.org');
    await app.createUser('bystander@example.org', { credits: 0, password });
    await awayFromWindowEdge();
    for (let attempt = 0; attempt < LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS; attempt++) {
      expectProblem(await login(app, 'guessed@example.org', `guess ${attempt}`), 401, 'unauthorized');
    }
    // The address is compared as the account is found: trimmed and in any letter case.
    expectLoginLimited(await login(app, ' Guessed@Example.org', password));
    expect((await login(app, 'bystander@example.org', password)).status).toBe(200);
  });

  it('answers 429 once one client address had its failures, whichever accounts it tried', async () => {
    const app = await appWithAccount('owner@example.org');
    await awayFromWindowEdge();
    const sprayed = Array.from({ length: LOGIN_FAILURES_PER_ADDRESS }, (_, i) => login(app, `sprayed${i}@example.org`, 'password1'));
    for (const reply of await Promise.all(sprayed)) expectProblem(reply, 401, 'unauthorized');
    expectLoginLimited(await login(app, 'owner@example.org', password));
  });

  /** A login sent from the loopback address `from` (127.0.14.x), as from another client. */
  async function loginFrom(app: TestApp, from: string, email: string, attempt: string): Promise<Reply> {
    const dispatcher = new Agent({ localAddress: from });
    try {
      return await call(app.baseUrl, 'POST', '/v1/auth/login', { json: { email, password: attempt }, dispatcher });
    } finally {
      await dispatcher.close();
    }
  }

  it('a flood of 200 wrong passwords from one client address locks out that address, not the owner at another', async () => {
    const app = await appWithAccount('flooded@example.org');
    await awayFromWindowEdge();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 200; attempt++) statuses.push((await loginFrom(app, '127.0.14.2', 'flooded@example.org', `guess ${attempt}`)).status);
    expect(statuses.slice(0, LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS).every((status) => status === 429)).toBe(true);
    // The flooding address is refused even the right password...
    expectLoginLimited(await loginFrom(app, '127.0.14.2', 'flooded@example.org', password));
    // ...the owner, elsewhere, signs in.
    const owner = await loginFrom(app, '127.0.14.3', 'flooded@example.org', password);
    expect(owner.status, JSON.stringify(owner.body)).toBe(200);
    expect(typeof owner.body.token).toBe('string');
  });

  it('failures on one account from many addresses only slow its logins: the owner still signs in', async () => {
    const app = await appWithAccount('besieged@example.org');
    await awayFromWindowEdge();
    const attackers = ['127.0.14.4', '127.0.14.5', '127.0.14.6', '127.0.14.7', '127.0.14.8'];
    const guesses = attackers.flatMap((from) =>
      Array.from({ length: LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS }, (_, i) => loginFrom(app, from, 'besieged@example.org', `guess ${i}`)),
    );
    for (const reply of await Promise.all(guesses)) expectProblem(reply, 401, 'unauthorized');
    // 50 failures: far past the free ones, so this login waits the longest delay, and then succeeds.
    const owner = await loginFrom(app, '127.0.14.9', 'besieged@example.org', password);
    expect(owner.status, JSON.stringify(owner.body)).toBe(200);
    // A wrong password from a fresh address is a plain 401, not a refusal.
    expectProblem(await loginFrom(app, '127.0.14.10', 'besieged@example.org', 'still guessing'), 401, 'unauthorized');
  });
});
