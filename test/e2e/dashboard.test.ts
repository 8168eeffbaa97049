import { mkdir, readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESULT_COLUMNS } from '../../src/csv/result-columns.js';
import { axeViolations } from '../support/axe.js';
import { CHROMIUM, launchBrowser, type Browser } from '../support/browser.js';
import { fileProblem, missing } from '../support/machine.js';
import { startScriptedServer, type ScriptedServer } from '../support/scripted-http-server.js';
import { MAIL_DOMAIN, MISSING_DOMAIN, startMailWorld, type MailWorld } from '../support/service-app.js';
import { startService, type RunningService } from '../support/service.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';

/**
 * The dashboard in a real headless Chromium against the real service (the built CLI's `serve`),
 * whose engine asks loopback DNS and SMTP fixtures, so every verdict is known in advance. Pages
 * are found by the accessible names the issue lists, as a screen reader would find them.
 */

const PASSWORD = 'correct horse battery staple';
const EMAIL = 'dana@example.test';
const CREDITS = 100;
/** A 550 whose text is markup and script, as a hostile MX could send it. */
const HOSTILE_TEXT = '5.1.1 <img src=x onerror="window.__pwned=1"><script>window.__pwned=2;alert(1)</script> gone';
const ANN = `ann@${MAIL_DOMAIN}`;
const INFO = `info@${MAIL_DOMAIN}`;
/** Not a mailbox: its 550 carries HOSTILE_TEXT. */
const BOB = `bob@${MAIL_DOMAIN}`;
const GONE = `someone@${MISSING_DOMAIN}`;

/** Semicolon-separated, a header, extra columns, a duplicate (other case), a malformed address, CRLF line ends. */
const LIST_ROWS = [
  ['id', 'name', 'email', 'plan'],
  ['1', 'Ann', ANN, 'pro'],
  ['2', 'Info desk', INFO, 'team'],
  ['3', 'Bob', BOB, 'free'],
  ['4', 'Gone', GONE, 'trial'],
  ['5', 'Ann again', ANN.toUpperCase(), 'pro'],
  ['6', 'Typo', 'not-an-address', 'free'],
];
const EXPECTED_VERDICTS = ['valid', 'risky', 'invalid', 'invalid', 'valid', 'invalid'];
/** Distinct addresses that pass the syntax check: what the job holds and costs. */
const QUEUED = 4;

let world: MailWorld;
let service: RunningService;
let browser: Browser;
/** An `mv_` token from `admin token create`: the API's view of what the dashboard did. */
let adminToken: string;
let store: StoreFixture;
/** Where a run leaves what people look at (gitignored): the overview's screenshot. */
const ARTIFACTS = fileURLToPath(new URL('../../.tmp/artifacts', import.meta.url));

async function api(path: string, token: string, init: { method?: 'GET' | 'POST'; body?: unknown } = {}) {
  const response = await request(`${service.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.statusCode, body: (await response.body.json()) as Record<string, unknown> };
}

async function tokenNames(): Promise<string[]> {
  const { body } = await api('/v1/tokens', adminToken);
  return (body.tokens as Array<{ name: string }>).map((token) => token.name);
}

async function signIn(page: Page, password: string): Promise<void> {
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function sessionCookie(): Promise<string> {
  const cookie = (await browser.context.cookies(service.baseUrl)).find((c) => c.name === 'mv_session');
  if (!cookie) throw new Error('no session cookie');
  return cookie.value;
}

// Sessions, uploads and jobs live in the store: the same walk on each of the two.
const absent = missing('test/e2e/dashboard.test.ts', 'Chromium', fileProblem(CHROMIUM));

describe.skipIf(absent).each(STORE_KINDS)('the dashboard in Chromium on a $name store', (kind) => {
  const dialogs: string[] = [];

  beforeAll(async () => {
    world = await startMailWorld({ mailboxes: [ANN, INFO], unknownUserText: HOSTILE_TEXT });
    store = await kind.create();
    service = await startService({ engineArgs: world.engineArgs, ...store.location });
    adminToken = await service.createUser(EMAIL, { credits: CREDITS, rateLimit: 1_000, password: PASSWORD });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await store?.close();
    await world?.close();
  });

  it('signs in after a wrong password, and shows the balance', async () => {
    const { page } = browser;
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(service.baseUrl);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await signIn(page, 'not the password');
    await expect(page.getByRole('alert').textContent()).resolves.toContain('Wrong email or password');
    await browser.screenshot('sign-in');
    await signIn(page, PASSWORD);
    expect(new URL(page.url()).pathname).toBe('/');
    await expect(page.locator('#balance').textContent()).resolves.toBe(String(CREDITS));
    await browser.screenshot('overview');
  });

  it('creates an API token that works against the API, and revokes it (401)', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.getByLabel('Token name').fill('<b>ci</b> pipeline');
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = await page.getByLabel('New token').inputValue();
    expect(secret).toMatch(/^mv_[0-9a-f]{64}$/);
    // The name came from a user: shown as text, never as markup.
    await expect(page.getByRole('cell', { name: '<b>ci</b> pipeline', exact: true }).count()).resolves.toBe(1);
    await browser.screenshot('tokens');
    // The form's answer was a redirect: a reload shows the list, without the secret, and creates nothing.
    await page.reload();
    await expect(page.getByLabel('New token').count()).resolves.toBe(0);
    expect((await tokenNames()).filter((name) => name === '<b>ci</b> pipeline')).toHaveLength(1);

    const account = await api('/v1/account', secret);
    expect(account.status).toBe(200);
    expect(account.body.email).toBe(EMAIL);

    await page
      .getByRole('row', { name: /<b>ci<\/b> pipeline/ })
      .getByRole('button', { name: 'Revoke' })
      .click();
    await expect(page.getByLabel('New token').count()).resolves.toBe(0);
    expect((await api('/v1/account', secret)).status).toBe(401);
    expect(await tokenNames()).not.toContain('<b>ci</b> pipeline');
  });

  it('creates a verify-only token that expires in 7 days, which the API holds to its scope', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.getByLabel('Token name').fill('web form');
    for (const scope of ['bulk', 'results', 'account', 'evidence']) await page.getByRole('checkbox', { name: new RegExp(`^${scope}:`) }).uncheck();
    await expect(page.getByRole('checkbox', { name: /^verify:/ }).isChecked()).resolves.toBe(true);
    await page.getByLabel('Expires').selectOption({ label: 'in 7 days' });
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = await page.getByLabel('New token').inputValue();
    const row = page.getByRole('row', { name: /web form/ });
    await expect(row.getByRole('cell').nth(1).textContent()).resolves.toBe('verify');
    expect(await axeViolations(page)).toEqual([]);

    const account = await api('/v1/account', secret);
    const token = account.body.token as { scopes: string[]; expiresAt: string };
    expect(token.scopes).toEqual(['verify']);
    expect(Date.parse(token.expiresAt) - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000);
    const bulk = await api('/v1/bulk-verify', secret, { method: 'POST', body: { emails: [ANN] } });
    expect(bulk.status).toBe(403);
    expect(bulk.body).toMatchObject({ code: 'insufficient_scope', scope: 'bulk' });
    expect((await api('/v1/verify', secret, { method: 'POST', body: { email: ANN } })).status).toBe(200);

    // No scope ticked: the form says what is wrong, and nothing is made.
    await page.getByLabel('Token name').fill('nothing');
    for (const scope of ['verify', 'bulk', 'results', 'account', 'evidence']) await page.getByRole('checkbox', { name: new RegExp(`^${scope}:`) }).uncheck();
    await page.getByRole('button', { name: 'Create token' }).click();
    await expect(page.locator('main').textContent()).resolves.toContain('at least one scope');
    expect(await tokenNames()).not.toContain('nothing');
  });

  it('refuses a list file over the size limit with a clear message', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Lists' }).click();
    await page.getByLabel('List file').setInputFiles({ name: 'huge.csv', mimeType: 'text/csv', buffer: Buffer.alloc(9 * 1024 * 1024, 'a\n') });
    await page.getByRole('button', { name: 'Upload' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('over 8 MiB');
  });

  it('verifies an uploaded semicolon CSV and downloads every row with its verdict', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Lists' }).click();
    const csv = LIST_ROWS.map((row) => row.join(';')).join('\r\n') + '\r\n';
    await page.getByLabel('List file').setInputFiles({ name: 'customers.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Upload' }).click();

    // The preview: the column found by its header, what will be sent and what it costs.
    await expect(page.getByLabel('Email column').inputValue()).resolves.toBe('3');
    await expect(page.locator('#to-verify').textContent()).resolves.toBe(String(QUEUED));
    // The malformed row, by the file line it is on (the header is line 1).
    await expect(
      page
        .getByRole('row', { name: /not-an-address/ })
        .getByRole('cell')
        .allTextContents(),
    ).resolves.toEqual(['7', 'not-an-address', 'missing @']);
    await browser.screenshot('list-preview');
    await page.getByRole('button', { name: 'Verify list' }).click();

    // The job page refreshes itself until the job completes.
    await page.locator('#job-status', { hasText: 'completed' }).waitFor({ timeout: 30_000 });
    await browser.screenshot('job');
    const breakdown = Object.fromEntries(
      (
        await page
          .locator('#breakdown tbody tr')
          .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].slice(0, 2).map((cell) => cell.textContent)))
      ).map(([verdict, count]) => [verdict, Number(count)]),
    );
    expect(breakdown).toEqual({ valid: 1, invalid: 2, risky: 1, catch_all: 0, unknown: 0 });
    await expect(page.getByRole('img', { name: /Addresses by verdict/ }).count()).resolves.toBe(1);
    expect(await axeViolations(page)).toEqual([]);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
    const text = await readFile((await download.path())!, 'utf8');
    const rows = parse(text, { delimiter: ';' }) as string[][];
    expect(rows[0]).toEqual([...LIST_ROWS[0]!, ...RESULT_COLUMNS]);
    expect(rows.slice(1).map((row) => row.slice(0, 4))).toEqual(LIST_ROWS.slice(1));
    expect(rows.slice(1).map((row) => row[4])).toEqual(EXPECTED_VERDICTS);
    expect(rows[3]![5]).toContain('<script>');

    // Only one verdict's rows: the invalid ones, the malformed row among them, in file order.
    const [invalidOnly] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'only invalid' }).click()]);
    const invalidRows = parse(await readFile((await invalidOnly.path())!, 'utf8'), { delimiter: ';' }) as string[][];
    expect(invalidRows.slice(1).map((row) => row[0])).toEqual(
      LIST_ROWS.slice(1)
        .filter((_, index) => EXPECTED_VERDICTS[index] === 'invalid')
        .map((row) => row[0]),
    );

    const account = await api('/v1/account', adminToken);
    // The job, and the one address the scoped token verified.
    expect(account.body.balance).toBe(CREDITS - QUEUED - 1);
  });

  it('shows a hostile SMTP reply on the job page as text: nothing of it runs', async () => {
    const { page } = browser;
    const reason = page.getByRole('row', { name: new RegExp(BOB) }).locator('td.reason');
    await expect(reason.textContent()).resolves.toContain('<script>window.__pwned=2;alert(1)</script>');
    await expect(page.locator('main script, main img').count()).resolves.toBe(0);
    await expect(page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).resolves.toBeUndefined();
    // A reload runs the page (and anything injected) once more.
    await page.reload();
    await expect(page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).resolves.toBeUndefined();
    expect(dialogs).toEqual([]);
  });

  it('verifies one address and shows the full result', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Verify an address' }).click();
    await page.getByLabel('Email').fill(ANN);
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await expect(page.locator('#result-title').textContent()).resolves.toBe(`${ANN}: valid`);
    await expect(page.getByRole('row', { name: 'smtpStatus valid' }).count()).resolves.toBe(1);
    await browser.screenshot('verify');
    // A likely typo gets the suggestion the CLI and the API give.
    await page.getByLabel('Email').fill('ann@gmial.com');
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await expect(page.locator('.suggestion').textContent()).resolves.toBe('Did you mean ann@gmail.com?');
  });

  it('draws a month of credits and verdicts on the overview, with the numbers as a table, axe-clean', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Overview' }).click();
    const today = new Date().toISOString().slice(0, 10);
    const credits = page.getByRole('img', { name: /Credits spent per day/ });
    const verdicts = page.getByRole('img', { name: /Verdicts per day/ });
    await expect(credits.count()).resolves.toBe(1);
    await expect(verdicts.count()).resolves.toBe(1);
    // The job's four charges and the single verifications so far, all today; the job's results by verdict.
    const row = page.getByRole('row', { name: new RegExp(today) });
    const cells = await row.getByRole('cell').allTextContents();
    const header = await page.locator('#usage thead th').allTextContents();
    const byColumn = Object.fromEntries(header.slice(1).map((name, index) => [name, Number(cells[index])]));
    const spent = CREDITS - ((await api('/v1/account', adminToken)).body.balance as number);
    expect(byColumn).toMatchObject({ Spent: spent, Granted: CREDITS, valid: 1, invalid: 2, risky: 1, catch_all: 0, unknown: 0 });
    expect(byColumn.Charged! - byColumn.Refunded!).toBe(spent);
    // Today's bars are drawn: the spent bar and one segment per verdict present.
    await expect(credits.locator('rect.bar-spent').count()).resolves.toBe(1);
    await expect(verdicts.locator('rect.bar').count()).resolves.toBe(3);
    await expect(page.locator('#usage caption').count()).resolves.toBe(1);
    await expect(page.locator('main script').count()).resolves.toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await mkdir(ARTIFACTS, { recursive: true });
    const shot = `${ARTIFACTS}/overview-${kind.name.toLowerCase()}.png`;
    await page.screenshot({ path: shot, fullPage: true });
    expect((await stat(shot)).size).toBeGreaterThan(10_000);
  });

  it('refuses a forged cross-site form post and creates nothing', async () => {
    const { page } = browser;
    const session = await sessionCookie();
    let evil: ScriptedServer | undefined;
    try {
      // A page elsewhere that posts a "create token" form to the dashboard as soon as it loads.
      evil = await startScriptedServer(() => ({
        status: 200,
        text: `<!doctype html><form id="f" method="post" action="${service.baseUrl}/tokens"><input name="name" value="forged"></form><script>document.getElementById('f').submit()</script>`,
      }));
      const refused = page.waitForResponse((response) => response.url() === `${service.baseUrl}/tokens` && response.request().method() === 'POST');
      await page.goto(evil.baseUrl);
      expect((await refused).status()).toBe(403);
    } finally {
      await evil?.close();
    }
    // The same, sent straight with the victim's own session cookie: a foreign Origin, with and without a token.
    for (const body of ['name=forged', `name=forged&_csrf=${encodeURIComponent(session)}`]) {
      const response = await request(`${service.baseUrl}/tokens`, {
        method: 'POST',
        headers: { cookie: `mv_session=${session}`, origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
      await response.body.dump();
      expect(response.statusCode).toBe(403);
    }
    expect(await tokenNames()).not.toContain('forged');
  });

  it('signs out, after which the old session cookie opens nothing', async () => {
    const { page } = browser;
    await page.goto(service.baseUrl);
    const session = await sessionCookie();
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    const response = await request(`${service.baseUrl}/`, { headers: { cookie: `mv_session=${session}` } });
    await response.body.dump();
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/sign-in');
  });
});
