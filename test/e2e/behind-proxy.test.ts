/**
 * `serve --trust-proxy`: the built CLI's service as a TLS-terminating reverse proxy would reach it,
 * the proxy played by this test on 127.0.0.1 sending X-Forwarded-For and X-Forwarded-Proto. With
 * the flag the client address and the scheme come from those headers (login limits per client,
 * `Secure` `__Host-` cookies); without it they count for nothing, since any client can send them.
 */
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { call } from '../support/service-app.js';
import { startService, type RunningService } from '../support/service.js';

const EMAIL = 'owner@proxy.test';
const PASSWORD = 'correct horse battery staple';
const ATTACKER = '203.0.113.66';
const OWNER = '198.51.100.7';

const running: RunningService[] = [];

afterEach(async () => {
  for (const service of running.splice(0)) await service.stop();
});

async function serve(args: string[]): Promise<RunningService> {
  const service = await startService({ engineArgs: args });
  running.push(service);
  await service.createUser(EMAIL, { credits: 0, password: PASSWORD });
  return service;
}

/**
 * Login failures count in fixed one-minute windows (login-limit.ts): the attempts and the sign-in
 * they are about must fall in one, so a test starting late in a minute waits for the next.
 */
async function startOfLoginWindow(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 30_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100));
}

const forwardedFor = (client: string) => ({ 'x-forwarded-for': client, 'x-forwarded-proto': 'https' });

function login(service: RunningService, client: string, password: string, dispatcher?: Agent) {
  return call(service.baseUrl, 'POST', '/v1/auth/login', { json: { email: EMAIL, password }, headers: forwardedFor(client), dispatcher });
}

/** The Set-Cookie lines of a dashboard page fetched as through the proxy. */
async function setCookies(
  service: RunningService,
  path: string,
  options: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {},
): Promise<string[]> {
  const response = await request(new URL(path, service.baseUrl), {
    method: options.method ?? 'GET',
    headers: { ...forwardedFor(OWNER), ...options.headers },
    body: options.body,
  });
  await response.body.dump();
  return [response.headers['set-cookie'] ?? []].flat();
}

/** Signs in on the dashboard form as through the proxy; the session cookie's Set-Cookie line. */
async function signIn(service: RunningService, csrfCookie: string): Promise<string | undefined> {
  const [name, value] = csrfCookie.split(';')[0]!.split('=') as [string, string];
  const body = new URLSearchParams({ email: EMAIL, password: PASSWORD, _csrf: decodeURIComponent(value) }).toString();
  const lines = await setCookies(service, '/sign-in', {
    method: 'POST',
    headers: { cookie: `${name}=${value}`, 'content-type': 'application/x-www-form-urlencoded', origin: service.baseUrl },
    body,
  });
  return lines.find((line) => /mv_session=[^;]/.test(line));
}

describe('serve --trust-proxy 127.0.0.1', () => {
  it('sets Secure __Host- cookies for a page the proxy says came over https', { timeout: 60_000 }, async () => {
    const service = await serve(['--trust-proxy', '127.0.0.1']);
    const [csrf] = await setCookies(service, '/sign-in');
    expect(csrf).toMatch(/^__Host-mv_sign_in=[^;]+;/);
    expect(csrf).toMatch(/; Secure/);
    expect(csrf).toMatch(/; Path=\//);
    const session = await signIn(service, csrf!);
    expect(session).toMatch(/^__Host-mv_session=[^;]+;.*; Secure/);
    expect(session).toMatch(/HttpOnly/);
  });

  it('counts failed logins per forwarded client: 40 from one leave the owner signing in from another', { timeout: 120_000 }, async () => {
    const service = await serve(['--trust-proxy', '127.0.0.1']);
    await startOfLoginWindow();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 40; attempt++) statuses.push((await login(service, ATTACKER, `guess ${attempt}`)).status);
    expect(statuses.slice(0, 10).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(10).every((status) => status === 429)).toBe(true);
    expect((await login(service, ATTACKER, PASSWORD)).status).toBe(429);
    const owner = await login(service, OWNER, PASSWORD);
    expect(owner.status, JSON.stringify(owner.body)).toBe(200);
    expect(owner.body.token).toEqual(expect.any(String));
  });
});

describe('serve --trust-proxy with a hop count', () => {
  it('refuses a hop count alone: whoever reaches the port directly would pick their own address', { timeout: 60_000 }, async () => {
    const refusal = await serve(['--trust-proxy', '1']).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(refusal?.message).toMatch(/exited \(2\) before it was ready/);
    expect(refusal?.message).toMatch(
      /--trust-proxy 1: a hop count alone believes the X-Forwarded-For of any client that reaches the port directly; name the proxies too/,
    );
  });

  it('believes a hop only from a listed proxy: a client reaching the port directly is limited by its own address', { timeout: 120_000 }, async () => {
    // The proxy is 127.0.0.2; this client comes from 127.0.0.1 and names a new address in every request.
    const service = await serve(['--trust-proxy', '127.0.0.2,1']);
    await startOfLoginWindow();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 12; attempt++) statuses.push((await login(service, `203.0.113.${attempt + 1}`, `guess ${attempt}`)).status);
    expect(statuses.slice(0, 10).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
    // Through the proxy the forwarded address counts: the owner signs in.
    const viaProxy = new Agent({ localAddress: '127.0.0.2' });
    try {
      const owner = await login(service, OWNER, PASSWORD, viaProxy);
      expect(owner.status, JSON.stringify(owner.body)).toBe(200);
    } finally {
      await viaProxy.close();
    }
  });
});

describe('login limits for IPv6 clients', () => {
  it('count per /64: a client naming another address of its /64 in every attempt is refused all the same', { timeout: 120_000 }, async () => {
    const service = await serve(['--trust-proxy', '127.0.0.1']);
    await startOfLoginWindow();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 12; attempt++)
      statuses.push((await login(service, `2001:db8:66:1::${(attempt + 1).toString(16)}`, `guess ${attempt}`)).status);
    expect(statuses.slice(0, 10).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
    expect((await login(service, '2001:db8:66:1:ffff:1:2:3', PASSWORD)).status).toBe(429);
    // The next /64 is another client.
    expect((await login(service, '2001:db8:66:2::1', PASSWORD)).status).toBe(200);
  });
});

describe('serve without --trust-proxy', () => {
  it('believes no forwarded header: plain cookies over http, and every client is the proxy', { timeout: 120_000 }, async () => {
    const service = await serve([]);
    const [csrf] = await setCookies(service, '/sign-in');
    expect(csrf).toMatch(/^mv_sign_in=[^;]+;/);
    expect(csrf).not.toMatch(/Secure/);
    expect(await signIn(service, csrf!)).toMatch(/^mv_session=[^;]+;/);

    await startOfLoginWindow();
    for (let attempt = 0; attempt < 40; attempt++) await login(service, ATTACKER, `guess ${attempt}`);
    // The forwarded address is no address: the owner "from elsewhere" is the same client, refused.
    expect((await login(service, OWNER, PASSWORD)).status).toBe(429);
  });
});
