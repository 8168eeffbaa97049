import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/**
 * A real headless Chromium (Debian's `chromium` package, which .ci/run installs) driven by
 * playwright-core. Background networking is off and the profile is new: on this closed network
 * Chromium's own update, sync and field-trial connections would otherwise fail and stall it.
 * `--no-sandbox` because tests run as root in CI, where Chromium's sandbox refuses to start.
 */

export const CHROMIUM = process.env.MAILVERIFY_CHROMIUM ?? '/usr/bin/chromium';

const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-gpu',
  '--disable-quic',
];

/** Screenshots of every page a test visits; gitignored (.tmp/), looked at by people, never compared. */
export const SCREENSHOT_DIR = fileURLToPath(new URL('../../.tmp/screenshots/', import.meta.url));

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Writes a full-page PNG of `page` as SCREENSHOT_DIR/<name>.png. */
  screenshot(name: string, page?: Page): Promise<string>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'mailverify-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    acceptDownloads: true,
    viewport: { width: 1100, height: 800 },
  });
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async screenshot(name, target = page) {
      const path = join(SCREENSHOT_DIR, `${name}.png`);
      await target.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
