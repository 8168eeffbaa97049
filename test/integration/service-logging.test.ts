/**
 * The service's logs never hold a secret (DESIGN.md §5): request lines carry the headers, with
 * `Authorization` redacted, and no body (so no password) is ever written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMailWorld, startTestApp, type MailWorld, type TestApp } from '../support/service-app.js';

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
