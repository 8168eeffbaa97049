import { hostname } from 'node:os';
import type { Page } from 'playwright-core';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_LOGINS_PER_ADDRESS } from '../../src/server/auth/login-limit.js';
import { DEVICE_CODE_GRANT_TYPE } from '../../src/wire/contract.js';
import { CHROMIUM, launchBrowser, type Browser } from '../support/browser.js';
import { createCliSandbox, type CliSandbox } from '../support/cli-sandbox.js';
import { fileProblem, missing } from '../support/machine.js';
import { call, expectProblem, type Reply } from '../support/service-app.js';
import { startService, type RunningService } from '../support/service.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';

/**
 * `login --web`, the OAuth 2.0 device grant (RFC 8628), end to end: the built CLI against the real
 * `serve`, the approval done on the dashboard's `/device` page in a real headless Chromium, then the
 * stored token used by `whoami`. Every error state of RFC 8628 §3.5 is met over HTTP: pending,
 * slow_down, access_denied (denied on the page), expired_token (a service whose codes live a
 * second), invalid_grant (unknown, and a code used once already), and the start's rate limit.
 */

const EMAIL = 'devon@example.test';
const OTHER = 'olga@example.test';
const PASSWORD = 'correct horse battery staple';
const DEVICE = `mailverify-${hostname()}`;
/** The service's codes are polled every second, not five: the tests wait less, by the same rules. */
const FAST = { MAILVERIFY_TEST_DEVICE_INTERVAL_SECONDS: '1' };

const absent = missing('test/e2e/device-login.test.ts', 'Chromium', fileProblem(CHROMIUM));

interface Started {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  interval: number;
  expires_in: number;
}

async function startLogin(baseUrl: string, body?: unknown): Promise<Started> {
  const reply = await call(baseUrl, 'POST', '/v1/auth/device', body === undefined ? {} : { json: body });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body as Started;
}

function poll(baseUrl: string, deviceCode: string, form = true): Promise<Reply> {
  const fields = { grant_type: DEVICE_CODE_GRANT_TYPE, device_code: deviceCode };
  return form
    ? call(baseUrl, 'POST', '/v1/auth/device/token', {
        rawBody: new URLSearchParams(fields).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      })
    : call(baseUrl, 'POST', '/v1/auth/device/token', { json: fields });
}

function expectOAuthError(reply: Reply, error: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(400);
  expect(reply.contentType).toMatch(/^application\/json/);
  expect(reply.headers['cache-control']).toBe('no-store');
  expect(reply.body).toMatchObject({ error, error_description: expect.any(String) });
}

async function signInIfAsked(page: Page, email: string): Promise<void> {
  if (new URL(page.url()).pathname !== '/sign-in') return;
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Opens the page the CLI printed, signs in when asked, and approves or denies what it shows. */
async function decideOnPage(page: Page, url: string, decision: 'Approve' | 'Deny', email = EMAIL): Promise<void> {
  await page.goto(url);
  await signInIfAsked(page, email);
  // Signing in led back to the approval page, with the code filled in.
  expect(new URL(page.url()).pathname).toBe('/device');
  await page.getByRole('button', { name: decision }).click();
  await expect(page.getByRole('status').textContent()).resolves.toBe(decision === 'Approve' ? 'Device approved' : 'Device denied');
}

describe.skipIf(absent).each(STORE_KINDS)('login --web on a $name store', (kind) => {
  let store: StoreFixture;
  let service: RunningService;
  let browser: Browser;
  const sandboxes: CliSandbox[] = [];

  beforeAll(async () => {
    store = await kind.create();
    service = await startService({ ...store.location, env: FAST });
    await service.createUser(EMAIL, { credits: 3, password: PASSWORD });
    await service.createUser(OTHER, { credits: 0, password: PASSWORD });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
    await service?.stop();
    await store?.close();
  });

  async function sandbox(): Promise<CliSandbox> {
    const created = await createCliSandbox({ MAILVERIFY_BASE_URL: service.baseUrl });
    sandboxes.push(created);
    return created;
  }

  /** Starts `login --web` and waits for the page it prints. */
  async function startCli(cli: CliSandbox) {
    const started = cli.start(['login', '--web', '--insecure-storage']);
    const deadline = Date.now() + 20_000;
    let url: string | undefined;
    while (url === undefined) {
      url = /approve it at (\S+?)(,| \()/.exec(started.output().stderr)?.[1];
      if (Date.now() > deadline) throw new Error(`login --web printed no page: ${started.output().stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return { ...started, url };
  }

  it('completes once the code is approved on /device in Chromium; whoami then uses the stored token', async () => {
    const cli = await sandbox();
    const login = await startCli(cli);
    const code = /one-time code: ([A-Z]{4}-[A-Z]{4})/.exec(login.output().stderr)?.[1];
    expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(login.url).toBe(`${service.baseUrl}/device?code=${code}`);

    const { page } = browser;
    await page.goto(login.url);
    // Signed out: sign-in first, then back to the page the terminal printed.
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await signInIfAsked(page, EMAIL);
    expect(page.url()).toBe(login.url);
    await expect(page.locator('#device-code').textContent()).resolves.toBe(code);
    await expect(page.locator('#device-name').textContent()).resolves.toBe(DEVICE);
    await expect(page.locator('#device-scopes').textContent()).resolves.toBe('verify, bulk, results, account, evidence');
    await browser.screenshot('device-approve');
    await page.getByRole('button', { name: 'Approve' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Device approved');

    const done = await login.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain(`Logged in to ${service.baseUrl} as ${EMAIL}`);
    expect(done.stdout).toBe('');
    const token = ((await cli.config())?.profiles as Record<string, { token: string; tokenId: string }>).default!;
    expect(token.token).toMatch(/^mv_[0-9a-f]{64}$/);
    expect(cli.printed()).not.toContain(token.token);

    const whoami = await cli.run(['whoami', '--json']);
    expect(whoami.code, whoami.stderr).toBe(0);
    // An API token of the account that approved, named after the device, with the scopes it asked.
    expect(JSON.parse(whoami.stdout)).toMatchObject({ email: EMAIL, token: { kind: 'api', id: token.tokenId, name: DEVICE } });

    // The code was used: it cannot be approved again, nor does another poll get anything.
    await page.goto(login.url);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('used already');
  });

  it('ends with the auth exit code when the code is denied on the page (access_denied), typed in by hand', async () => {
    const cli = await sandbox();
    const login = await startCli(cli);
    const code = /one-time code: (\S+)/.exec(login.output().stderr)![1]!;
    const { page } = browser;
    await page.goto(`${service.baseUrl}/device`);
    // Lower case and without the dash: the page forgives both.
    await page.getByLabel('Code').fill(code.replace('-', '').toLowerCase());
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.locator('#device-code').textContent()).resolves.toBe(code);
    await page.getByRole('button', { name: 'Deny' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Device denied');

    const done = await login.done;
    expect(done.code).toBe(4);
    expect(done.stderr).toContain('access_denied');
    expect(done.stderr).toContain('mailverify login --web');
    expect(await cli.config()).toBeUndefined();
  });

  it('answers authorization_pending, then slow_down when polled too soon (the interval 5 s longer), by form and by JSON', async () => {
    const started = await startLogin(service.baseUrl);
    expect(started).toMatchObject({ interval: 1, expires_in: 600, verification_uri: `${service.baseUrl}/device` });
    expectOAuthError(await poll(service.baseUrl, started.device_code), 'authorization_pending');
    const tooSoon = await poll(service.baseUrl, started.device_code, false);
    expectOAuthError(tooSoon, 'slow_down');
    expect(tooSoon.body.interval).toBe(6);
    // The longer interval holds from now on: a poll a second later is still too soon.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expectOAuthError(await poll(service.baseUrl, started.device_code), 'slow_down');
  });

  it('hands the token of the approving account, with the scopes asked, exactly once (then invalid_grant)', async () => {
    const started = await startLogin(service.baseUrl, { client_name: 'build box', scopes: ['verify', 'results'] });
    await browser.context.clearCookies();
    await decideOnPage(browser.page, started.verification_uri_complete, 'Approve', OTHER);
    const first = await poll(service.baseUrl, started.device_code);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.body).toEqual({ access_token: expect.stringMatching(/^mv_/), token_type: 'Bearer', scope: 'verify results', token_id: expect.any(String) });
    const account = await call(service.baseUrl, 'GET', '/v1/account', { token: first.body.access_token });
    expect(account.body).toMatchObject({ email: OTHER, token: { name: 'build box', scopes: ['verify', 'results'] } });
    // A second exchange of the same code gets nothing.
    expectOAuthError(await poll(service.baseUrl, started.device_code), 'invalid_grant');
  });

  it('answers invalid_grant for a code it never gave, and OAuth errors for a malformed poll', async () => {
    expectOAuthError(await poll(service.baseUrl, 'no-such-device-code'), 'invalid_grant');
    expectOAuthError(await call(service.baseUrl, 'POST', '/v1/auth/device/token', { json: { device_code: 'x' } }), 'invalid_request');
    expectOAuthError(
      await call(service.baseUrl, 'POST', '/v1/auth/device/token', { json: { grant_type: 'password', device_code: 'x' } }),
      'unsupported_grant_type',
    );
    // Not JSON at all: refused before the route reads it, as anywhere in the API.
    expectProblem(
      await call(service.baseUrl, 'POST', '/v1/auth/device/token', { rawBody: '{', headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_request',
    );
  });
});

describe.skipIf(absent)('device codes that expire, and the rate limit of starting', () => {
  let service: RunningService;
  let browser: Browser;

  beforeAll(async () => {
    service = await startService({ env: { ...FAST, MAILVERIFY_TEST_DEVICE_CODE_SECONDS: '1' } });
    await service.createUser(EMAIL, { credits: 0, password: PASSWORD });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('answers expired_token once the code expired, and the page will not approve it', async () => {
    const started = await startLogin(service.baseUrl);
    expect(started.expires_in).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expectOAuthError(await poll(service.baseUrl, started.device_code), 'expired_token');
    const { page } = browser;
    await page.goto(started.verification_uri_complete);
    await signInIfAsked(page, EMAIL);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('expired');
    await expect(page.getByRole('button', { name: 'Approve' }).count()).resolves.toBe(0);
  });

  it(`refuses a client address its ${DEVICE_LOGINS_PER_ADDRESS + 1}th start in a minute (429, Retry-After)`, async () => {
    // Fixed windows of a minute: all the starts in one window.
    const intoMinute = (Date.now() / 1000) % 60;
    if (intoMinute > 50) await new Promise((resolve) => setTimeout(resolve, (61 - intoMinute) * 1000));
    // From an address of its own, so that no other test's starts count.
    const dispatcher = new Agent({ localAddress: '127.0.0.77' });
    try {
      for (let started = 0; started < DEVICE_LOGINS_PER_ADDRESS; started++) {
        expect((await call(service.baseUrl, 'POST', '/v1/auth/device', { dispatcher })).status).toBe(200);
      }
      const refused = await call(service.baseUrl, 'POST', '/v1/auth/device', { dispatcher });
      expectProblem(refused, 429, 'rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      // Another address is not held back by it.
      expect((await call(service.baseUrl, 'POST', '/v1/auth/device')).status).toBe(200);
    } finally {
      await dispatcher.close();
    }
  });
});
