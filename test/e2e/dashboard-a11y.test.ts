import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../support/axe.js';
import { CHROMIUM, launchBrowser, type Browser } from '../support/browser.js';
import { fileProblem, missing } from '../support/machine.js';
import { MAIL_DOMAIN, startMailWorld, type MailWorld } from '../support/service-app.js';
import { startService, type RunningService } from '../support/service.js';

/**
 * Every page of the dashboard, at a phone's width and a laptop's, has no serious or critical axe
 * violation (WCAG A and AA, best practice). The pages hold what makes them wide or long: a usage
 * table, a job with results, a list's preview with rejected rows, a token and a webhook.
 */

const PASSWORD = 'correct horse battery staple';
const EMAIL = 'ada@example.test';
const ANN = `ann@${MAIL_DOMAIN}`;
const WIDTHS = [375, 1280] as const;

let world: MailWorld;
let service: RunningService;
let browser: Browser;
/** Path → what it shows, each visited at every width. */
const pages = new Map<string, string>();

async function signIn(): Promise<void> {
  const { page } = browser;
  await page.goto(`${service.baseUrl}/sign-in`);
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const absent = missing('test/e2e/dashboard-a11y.test.ts', 'Chromium', fileProblem(CHROMIUM));

describe.skipIf(absent)('the dashboard, page by page, for axe at 375 px and 1280 px', () => {
  beforeAll(async () => {
    world = await startMailWorld({ mailboxes: [ANN] });
    service = await startService({ engineArgs: world.engineArgs });
    await service.createUser(EMAIL, { credits: 100, rateLimit: 1_000, password: PASSWORD });
    browser = await launchBrowser();
    const { page } = browser;
    await signIn();

    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.getByLabel('Token name').fill('laptop');
    await page.getByRole('button', { name: 'Create token' }).click();
    pages.set('/tokens', 'tokens');

    await page.getByRole('link', { name: 'Lists' }).click();
    const rows = ['email', ANN, `nobody@${MAIL_DOMAIN}`, ...Array.from({ length: 12 }, (_, index) => `broken-${index}`)];
    await page.getByLabel('List file').setInputFiles({ name: 'list.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.join('\n') + '\n') });
    await page.getByRole('button', { name: 'Upload' }).click();
    pages.set(new URL(page.url()).pathname, 'a list preview with rejected rows');
    await page.getByRole('button', { name: 'Verify list' }).click();
    await page.locator('#job-status', { hasText: 'completed' }).waitFor({ timeout: 30_000 });
    pages.set(new URL(page.url()).pathname, 'a completed job');
    pages.set('/lists', 'lists with a job');
    pages.set('/verify', 'verify one address');
    pages.set('/webhooks', 'webhooks');
    pages.set('/device', 'the device login form');
    const device = (await (await fetch(`${service.baseUrl}/v1/auth/device`, { method: 'POST' })).json()) as { user_code: string };
    pages.set(`/device?code=${device.user_code}`, 'a device asking to be approved');
    pages.set('/', 'the overview with its usage table');
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await world?.close();
  });

  it.each(WIDTHS)('finds nothing serious or critical on any page at %i px', async (width) => {
    const { page } = browser;
    await page.setViewportSize({ width, height: 800 });
    const found: Record<string, string[]> = {};
    for (const [path, what] of pages) {
      await page.goto(`${service.baseUrl}${path}`);
      const violations = await axeViolations(page, ['serious', 'critical']);
      if (violations.length > 0) found[`${path} (${what})`] = violations;
    }
    // Signed out, the sign-in page; then in again for the next width.
    await browser.context.clearCookies();
    await page.goto(`${service.baseUrl}/sign-in`);
    const signInViolations = await axeViolations(page, ['serious', 'critical']);
    if (signInViolations.length > 0) found['/sign-in'] = signInViolations;
    await signIn();
    expect(found).toEqual({});
  });
});
