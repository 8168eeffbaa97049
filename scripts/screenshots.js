/**
 * `npm run docs:screenshots`: the README's pictures of the dashboard, taken from the real thing so
 * that they never drift from it. It starts the built `mailverify serve` on a temp data dir, its
 * engine pointed at a DNS server and two MX hosts on loopback (bench/fixtures: plain JS, as this
 * script runs under plain Node), signs a user in with Debian's Chromium (playwright-core, flags as in
 * test/support/browser.ts), uploads an ordinary list, lets the real engine verify it, and writes
 * docs/dashboard-overview.png and docs/dashboard-job.png. Every process and temp dir it makes is gone
 * when it ends, also when it fails. `npm run build` first.
 */
import { spawn, execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { startDnsFixture } from '../bench/fixtures/dns.js';
import { startMxHost } from '../bench/fixtures/smtp.js';
import { RESOLVER_CANARIES } from '../dist/engine/dns/sanity.js';

const BIN = fileURLToPath(new URL('../bin/mailverify.js', import.meta.url));
const DOCS = fileURLToPath(new URL('../docs/', import.meta.url));
const CHROMIUM = process.env.MAILVERIFY_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-gpu',
  '--disable-quic',
];
const LISTENING = /mailverify: listening on (http:\/\/\S+)/;
const EMAIL = 'ann@example.com';
const PASSWORD = 'correct horse battery staple';

/** Two mail hosts on a loopback prefix of their own: one keeps a mailbox list, one greylists. */
const HOST_PREFIX = `127.${100 + Math.floor(Math.random() * 150)}.${Math.floor(Math.random() * 250)}`;
const MAIL_HOST = `${HOST_PREFIX}.10`;
const GREYLIST_HOST = `${HOST_PREFIX}.11`;
const mailboxes = (domain, names) => new Set(names.map((name) => `${name}@${domain}`));
const MAIL_DOMAINS = new Map([
  ['northwind.example', { catchAll: false, mailboxes: mailboxes('northwind.example', ['nancy.davolio', 'andrew.fuller', 'janet.leverling', 'info']) }],
  ['contoso.example', { catchAll: true, mailboxes: new Set() }],
  ['mailinator.com', { catchAll: true, mailboxes: new Set() }],
]);
const GREYLIST_DOMAINS = new Map([['fabrikam.example', { catchAll: false, mailboxes: mailboxes('fabrikam.example', ['margaret.peacock']) }]]);

/** An ordinary customer list: a name column, the address, a city; one row of each outcome. */
const LIST = [
  ['name', 'email', 'city'],
  ['Nancy Davolio', 'nancy.davolio@northwind.example', 'Seattle'],
  ['Andrew Fuller', 'andrew.fuller@northwind.example', 'Tacoma'],
  ['Janet Leverling', 'janet.leverling@northwind.example', 'Kirkland'],
  ['Steven Buchanan', 'steven.buchanan@northwind.example', 'London'],
  ['Northwind info desk', 'info@northwind.example', 'Seattle'],
  ['Laura Callahan', 'laura.callahan@contoso.example', 'Seattle'],
  ['Robert King', 'robert.king@mailinator.com', 'London'],
  ['Margaret Peacock', 'margaret.peacock@fabrikam.example', 'Redmond'],
  ['Anne Dodsworth', 'anne.dodsworth@gmial.com', 'London'],
  ['Michael Suyama', 'michael.suyama@northwind', 'London'],
];

function dnsRecords() {
  const records = new Map(RESOLVER_CANARIES.map((domain) => [domain, [{ type: 'MX', exchange: `mx.${domain}`, priority: 10 }]]));
  records.set('mx.northwind.example', [{ type: 'A', address: MAIL_HOST }]);
  records.set('mx.fabrikam.example', [{ type: 'A', address: GREYLIST_HOST }]);
  for (const domain of MAIL_DOMAINS.keys()) records.set(domain, [{ type: 'MX', exchange: 'mx.northwind.example', priority: 10 }]);
  for (const domain of GREYLIST_DOMAINS.keys()) records.set(domain, [{ type: 'MX', exchange: 'mx.fabrikam.example', priority: 10 }]);
  return records;
}

/** Stops a child: SIGTERM, SIGKILL after 10 s. */
async function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

function startServe(args, env) {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ready = new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
      const match = LISTENING.exec(stderr);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`mailverify serve exited (${code}) before it listened:\n${stderr}`)));
  });
  return { child, ready };
}

async function takeScreenshots(baseUrl, profileDir) {
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1100, height: 800 },
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(baseUrl);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.getByRole('link', { name: 'Lists' }).click();
    const csv = LIST.map((row) => row.join(',')).join('\n') + '\n';
    await page.getByLabel('List file').setInputFiles({ name: 'customers.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('button', { name: 'Verify list' }).click();
    await page.locator('#job-status', { hasText: 'completed' }).waitFor({ timeout: 60_000 });
    await page.screenshot({ path: join(DOCS, 'dashboard-job.png'), fullPage: true });

    await page.getByRole('link', { name: 'Overview' }).click();
    await page.screenshot({ path: join(DOCS, 'dashboard-overview.png'), fullPage: true });
  } finally {
    await context.close();
  }
}

async function main() {
  const cleanups = [];
  try {
    const tempDir = await mkdtemp(join(tmpdir(), 'mailverify-screenshots-'));
    cleanups.push(() => rm(tempDir, { recursive: true, force: true }));
    const mail = await startMxHost({ host: MAIL_HOST, port: 0, replyDelayMs: 0, greylist: false, domains: MAIL_DOMAINS });
    cleanups.push(() => mail.close());
    const greylist = await startMxHost({ host: GREYLIST_HOST, port: mail.port, replyDelayMs: 0, greylist: true, domains: GREYLIST_DOMAINS });
    cleanups.push(() => greylist.close());
    const dns = await startDnsFixture(dnsRecords());
    cleanups.push(() => dns.close());

    const dataDir = join(tempDir, 'data');
    const env = { ...process.env, NO_COLOR: '1', MAILVERIFY_NO_UPDATE_CHECK: '1' };
    const storeArgs = ['--data-dir', dataDir];
    // A greylist retry shorter than its budget: the greylisted address is asked again and accepted.
    const engineArgs = [
      '--dns-server',
      dns.server,
      '--smtp-port',
      String(mail.port),
      '--allow-private-networks',
      '--no-web-check',
      '--greylist-retry',
      '1000',
      '--greylist-budget',
      '5000',
      '--port25-check-host',
      'mx.northwind.example',
      '--standing-interval',
      '0',
    ];
    const admin = promisify(execFile);
    const add = admin(process.execPath, [BIN, 'admin', ...storeArgs, '--create', 'user', 'add', EMAIL, '--credits', '1000', '--password-stdin'], { env });
    add.child.stdin.end(`${PASSWORD}\n`);
    await add;

    const serve = startServe(['--host', '127.0.0.1', '--port', '0', ...storeArgs, ...engineArgs], env);
    cleanups.push(() => stopProcess(serve.child));
    const baseUrl = await serve.ready;
    await takeScreenshots(baseUrl, join(tempDir, 'chromium'));
    process.stdout.write(`wrote ${join(DOCS, 'dashboard-job.png')} and ${join(DOCS, 'dashboard-overview.png')}\n`);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

await main();
