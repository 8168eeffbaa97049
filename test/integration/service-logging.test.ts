/**
 * The service's logs never hold a secret (docs/architecture.md "The service inside"): request lines carry the headers, with
 * `Authorization` redacted, and no body (so no password) is ever written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startMailWorld, startTestApp, type MailWorld, type TestApp } from '../support/service-app.js';

describe('service logs', () => {
  let world: MailWorld;
  let app: TestApp;
  const lines: string[] = [];

  beforeAll(async () => {
    world = await startMailWorld({ mailboxes: [] });
    app = await startTestApp({ world, log: { level: 'info', stream: { write: (line) => void lines.push(line) } } });
  });
  afterAll(async () => {
    await app?.close();
    await world?.close();
  });

  it('logs requests at info level with their headers, Authorization redacted, passwords absent', async () => {
    const password = 'never-in-a-log-4711';
    const { token } = await app.createUser('logged@example.org', { credits: 1, password });
    const login = await app.call('POST', '/v1/auth/login', { json: { email: 'logged@example.org', password } });
    const jwt = login.body.token as string;
    // A near miss of a real token is as secret as the token: it may be one from another install.
    const wrong = `mv_${'f'.repeat(64)}`;
    for (const bearer of [token, jwt, wrong]) await app.call('GET', '/v1/account', { token: bearer, headers: { 'user-agent': 'log-test/1' } });

    const log = lines.join('');
    const requestLines = lines.map((line) => JSON.parse(line) as { msg: string; req?: { url: string; headers: Record<string, string> } });
    const accountRequests = requestLines.filter((line) => line.msg === 'incoming request' && line.req?.url === '/v1/account');
    expect(accountRequests).toHaveLength(3);
    for (const line of accountRequests) {
      expect(line.req!.headers['user-agent']).toBe('log-test/1');
      expect(line.req!.headers.authorization).toBe('[redacted]');
    }
    for (const secret of [token, jwt, wrong, password]) expect(log).not.toContain(secret);
  });
});

describe('service logs at trace level, tokens outside Authorization', () => {
  let world: MailWorld;
  let app: TestApp;
  const lines: string[] = [];

  beforeAll(async () => {
    world = await startMailWorld({ mailboxes: [] });
    app = await startTestApp({ world, log: { level: 'trace', stream: { write: (line) => void lines.push(line) } } });
  });
  afterAll(async () => {
    await app?.close();
    await world?.close();
  });

  it('redacts a token by its shape in any header and refuses one in the query string', async () => {
    const password = 'trace-level-secret-0815';
    const { token } = await app.createUser('traced@example.org', { credits: 1, password });
    const jwt = (await app.call('POST', '/v1/auth/login', { json: { email: 'traced@example.org', password } })).body.token as string;
    const foreign = `mv_${'A1b2'.repeat(10)}`;

    // In headers other than Authorization: not accepted as a login, and not logged.
    const inHeaders: [string, string][] = [
      ['x-api-key', token],
      ['x-auth-token', jwt],
      ['cookie', `session=${jwt}`],
      ['x-forwarded-token', `Bearer ${foreign}`],
    ];
    for (const [name, value] of inHeaders) {
      expectProblem(await app.call('GET', '/v1/account', { headers: { [name]: value, 'user-agent': 'trace-test/1' } }), 401, 'unauthorized');
    }
    // In the query string, whatever the parameter's name: refused with where to send it instead.
    for (const query of [`access_token=${token}`, `token=${jwt}`, `q=${token}`, `anything=${jwt}`, 'api_key=short']) {
      for (const path of ['/v1/account', '/healthz']) {
        const reply = await app.call('GET', `${path}?${query}`, { token });
        expectProblem(reply, 400, 'invalid_request');
        expect(reply.body.detail).toContain('send it in the Authorization header');
        for (const secret of [token, jwt]) expect(JSON.stringify(reply.body)).not.toContain(secret);
      }
    }
    // A query without a token still works.
    expect((await app.call('GET', '/healthz?probe=1')).status).toBe(200);

    const log = lines.join('');
    // Every request was logged (login, 4 headers, 10 queries, 1 plain), at trace level too.
    expect(lines.filter((line) => line.includes('"msg":"incoming request"'))).toHaveLength(16);
    expect(log).toContain('trace-test/1');
    expect(log).toContain('[redacted]');
    for (const secret of [token, jwt, foreign, password, token.slice(3), jwt.split('.')[1]!]) expect(log).not.toContain(secret);
  });
});
