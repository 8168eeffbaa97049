import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchBrowser, type Browser } from '../support/browser.js';
import { cookieFrom, csrfOf, fetchPage, signIn as signInOverHttp } from '../support/dashboard-pages.js';
import { fileProblem, missing } from '../support/machine.js';
import { startService, type RunningService } from '../support/service.js';

/**
 * The dashboard's rough edges, in a real Chromium against the real service: a job is deleted only
 * once the user confirms (no script needed), and the lists page then says what went; the ledger
 * shows a deleted job as deleted; every rejected row of a preview can be paged to; the webhook
 * refusal names the flag that allows private receivers; a job's results fit a 1280 px window.
 * Jobs come from test tokens (the sandbox) and from a live token whose engine reaches no DNS
 * server, so that nothing here needs a mail server.
 */

const PASSWORD = 'correct horse battery staple';
const EMAIL = 'edges@example.test';

let service: RunningService;
let browser: Browser;
let live: string;
let test: string;

async function api(method: 'GET' | 'POST', path: string, token: string, body?: unknown) {
  const response = await request(`${service.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.statusCode, body: (await response.body.json()) as Record<string, unknown> };
}

async function completedJob(token: string, emails: string[]): Promise<string> {
  const jobId = (await api('POST', '/v1/bulk-verify', token, { emails })).body.jobId as string;
  for (let tries = 0; tries < 200; tries += 1) {
    if ((await api('GET', `/v1/bulk-verify/${jobId}/progress`, token)).body.status === 'completed') return jobId;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`job ${jobId} did not complete`);
}

const absent = missing('test/e2e/dashboard-rough-edges.test.ts', 'Chromium', fileProblem(CHROMIUM));

describe.skipIf(absent)('the dashboard', () => {
  beforeAll(async () => {
    service = await startService({ engineArgs: ['--dns-server', '127.0.0.1:9', '--retry-schedule', 'none'] });
    live = await service.createUser(EMAIL, { credits: 100, rateLimit: 1_000, password: PASSWORD });
    test = (await api('POST', '/v1/tokens', live, { name: 'sandbox', test: true })).body.token as string;
    browser = await launchBrowser();
    const { page } = browser;
    await page.goto(`${service.baseUrl}/sign-in`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Lists' }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('asks before deleting a job, says what was deleted, and shows it in the ledger as deleted', async () => {
    const jobId = await completedJob(live, ['one@example.com', 'two@example.com']);
    const { page } = browser;
    await page.goto(`${service.baseUrl}/jobs/${jobId}`);
    // Not ticked: the browser does not send the form, and a client that sends it anyway is refused.
    await page.getByRole('button', { name: 'Delete' }).click();
    expect(new URL(page.url()).pathname).toBe(`/jobs/${jobId}`);
    const cookie = cookieFrom((await signInOverHttp(service.baseUrl, EMAIL, PASSWORD)).page, 'mv_session');
    const form = await fetchPage(service.baseUrl, `/jobs/${jobId}`, { cookie });
    const unconfirmed = await fetchPage(service.baseUrl, `/jobs/${jobId}/delete`, { method: 'POST', cookie, form: { _csrf: csrfOf(form) } });
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.text).toContain('Nothing was deleted');
    expect((await api('GET', `/v1/bulk-verify/${jobId}/progress`, live)).status).toBe(200);

    await page.getByLabel('Yes, delete this job and its 2 addresses for good').check();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${service.baseUrl}/lists`);
    expect(await page.locator('#deleted-job').textContent()).toMatch(new RegExp(`Deleted the job “${jobId}”: its 2 addresses, their results are gone`));
    expect((await api('GET', `/v1/bulk-verify/${jobId}/progress`, live)).status).toBe(404);
    // Said once: a reload shows the list alone.
    await page.reload();
    expect(await page.locator('#deleted-job').count()).toBe(0);

    await page.goto(`${service.baseUrl}/`);
    const ledger = await page.locator('main').textContent();
    expect(ledger).toContain('job deleted');
    expect(await page.locator(`a[href="/jobs/${jobId}"]`).count()).toBe(0);
  });

  it('pages through every row of a preview that fails the syntax check', async () => {
    const { page } = browser;
    await page.goto(`${service.baseUrl}/lists`);
    const rows = ['email', 'ann@example.com', ...Array.from({ length: 12 }, (_, index) => `broken-${index}`)];
    await page.getByLabel('List file').setInputFiles({ name: 'list.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.join('\n') + '\n') });
    await page.getByRole('button', { name: 'Upload' }).click();
    const rejected = page.locator('#rejected');
    await expect(rejected.locator('caption').textContent()).resolves.toContain('1–10 of 12');
    expect(await rejected.locator('tbody tr').count()).toBe(10);
    await page.getByRole('link', { name: 'Next rejected rows' }).click();
    await expect(rejected.locator('caption').textContent()).resolves.toContain('11–12 of 12');
    expect(await rejected.locator('tbody td:nth-child(2)').allTextContents()).toEqual(['broken-10', 'broken-11']);
    await page.getByRole('link', { name: 'Previous rejected rows' }).click();
    await expect(rejected.locator('tbody td:nth-child(2)').first().textContent()).resolves.toBe('broken-0');
  });

  it('names --allow-private-webhooks when it refuses a private receiver', async () => {
    const { page } = browser;
    await page.goto(`${service.baseUrl}/webhooks`);
    await page.getByLabel('Endpoint URL').fill('http://127.0.0.1:9/hook');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect(page.locator('main').textContent()).resolves.toContain('--allow-private-webhooks');
  });

  it('fits a job of long addresses and replies in a 1280 px window, with no sideways scroll', async () => {
    const local = `invalid+${'a'.repeat(55)}`;
    const domain = ['d', 'e', 'f'].map((letter) => letter.repeat(60)).join('.') + '.com';
    const jobId = await completedJob(
      test,
      Array.from({ length: 6 }, (_, index) => `${local.slice(0, 60)}${index}@${domain}`),
    );
    const { page } = browser;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${service.baseUrl}/jobs/${jobId}`);
    expect(await page.locator('#results tbody tr').count()).toBe(6);
    const widths = (await page.evaluate('({ page: document.documentElement.scrollWidth, window: document.documentElement.clientWidth })')) as {
      page: number;
      window: number;
    };
    expect(widths.page).toBeLessThanOrEqual(widths.window);
  });
});
