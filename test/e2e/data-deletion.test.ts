/**
 * Data leaves when asked (docs/api.md "Deleting data"), end to end: the built CLI's `bulk delete`
 * against `serve`, `admin user delete` on its store, and `serve --retention` deleting finished jobs
 * by itself, on both stores.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { numberedAddresses } from '../support/numbered-addresses.js';
import { call, MAIL_DOMAIN, pollProgress, startMailWorld, type MailWorld } from '../support/service-app.js';
import { runCli, startService, type RunningService } from '../support/service.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';

const running: RunningService[] = [];
const places: StoreFixture[] = [];
/** A mail host at its own pace: every reply waits `SLOW_REPLY_MS`, so a job of a few hundred addresses runs for many seconds. */
const SLOW_REPLY_MS = 150;
let slowWorld: MailWorld;
let fastWorld: MailWorld;
/** Every address the mail hosts know: the even-numbered of each list below. */
const lists = { erased: numberedAddresses('erased-', 1_000, MAIL_DOMAIN), stopped: numberedAddresses('stopped-', 300, MAIL_DOMAIN) };

beforeAll(async () => {
  const mailboxes = [...lists.erased, ...lists.stopped].filter((_, index) => index % 2 === 0);
  [slowWorld, fastWorld] = [await startMailWorld({ mailboxes, replyDelayMs: SLOW_REPLY_MS }), await startMailWorld({ mailboxes })];
});

afterAll(async () => {
  await Promise.all([slowWorld?.close(), fastWorld?.close()]);
});

afterEach(async () => {
  for (const each of running.splice(0)) await each.stop();
  for (const place of places.splice(0)) await place.close();
});

/** The addresses found, byte for byte, in any file under `dir` (the database, its -wal and -shm, anything else). */
function addressesIn(dir: string, addresses: readonly string[]): string[] {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  const contents = files.map((entry) => readFileSync(join(entry.parentPath, entry.name)).toString('latin1'));
  return addresses.filter((address) => contents.some((content) => content.includes(address)));
}

async function service(options: Parameters<typeof startService>[0] = {}): Promise<RunningService> {
  const api = await startService(options);
  running.push(api);
  return api;
}

/** A job of addresses that fail the syntax check: completed at once, without DNS or SMTP. */
async function completedJob(api: RunningService, token: string): Promise<string> {
  const submitted = await call(api.baseUrl, 'POST', '/v1/bulk-verify', { token, json: { emails: ['not-an-address', 'also@@broken'] } });
  const jobId = submitted.body.jobId as string;
  await pollProgress(api.baseUrl, jobId, token, (progress) => progress.status === 'completed');
  return jobId;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('deleting data', () => {
  it('mailverify bulk delete removes a job (exit 0), then says it is not there (exit 7); another account cannot', { timeout: 60_000 }, async () => {
    const api = await service();
    const token = await api.createUser('owner@example.test', { credits: 10 });
    const stranger = await api.createUser('stranger@example.test', { credits: 10 });
    const jobId = await completedJob(api, token);
    const cli = (as: string, ...args: string[]) => runCli(args, { env: { MAILVERIFY_BASE_URL: api.baseUrl, MAILVERIFY_TOKEN: as } });

    expect((await cli(stranger, 'bulk', 'delete', jobId)).code).toBe(7);
    expect((await call(api.baseUrl, 'GET', `/v1/bulk-verify/${jobId}`, { token })).status).toBe(200);
    const deleted = await cli(token, 'bulk', 'delete', jobId);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stderr).toBe(`job ${jobId} deleted\n`);
    expect((await call(api.baseUrl, 'GET', `/v1/bulk-verify/${jobId}`, { token })).status).toBe(404);
    const again = await cli(token, '--json', 'bulk', 'delete', jobId);
    expect(again.code).toBe(7);
    expect(JSON.parse(again.stderr)).toMatchObject({ error: { code: 'not_found' } });
  });

  it('mailverify admin user delete removes an account with its tokens and jobs; others keep theirs', { timeout: 60_000 }, async () => {
    const api = await service();
    const leaving = await api.createUser('leaving@example.test', { credits: 10 });
    const staying = await api.createUser('staying@example.test', { credits: 10 });
    const [leavingJob, stayingJob] = [await completedJob(api, leaving), await completedJob(api, staying)];

    const deleted = await api.admin(['user', 'delete', 'leaving@example.test']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stderr).toContain('user leaving@example.test deleted');
    // The token is refused at once (the service drops what it cached about it).
    expect((await call(api.baseUrl, 'GET', '/v1/account', { token: leaving })).status).toBe(401);
    expect((await call(api.baseUrl, 'GET', `/v1/bulk-verify/${stayingJob}`, { token: staying })).status).toBe(200);
    expect((await call(api.baseUrl, 'GET', `/v1/bulk-verify/${leavingJob}`, { token: staying })).status).toBe(404);
    const listed = JSON.parse((await api.admin(['user', 'list', '--json'])).stdout) as Array<{ email: string }>;
    expect(listed.map((user) => user.email)).toEqual(['staying@example.test']);
    expect((await api.admin(['user', 'delete', 'leaving@example.test'])).code).toBe(7);
  });

  it('leaves no address of a deleted job in any file of the SQLite data dir', { timeout: 120_000 }, async () => {
    const api = await service({ engineArgs: fastWorld.engineArgs });
    const token = await api.createUser('owner@example.test', { credits: 1_000, rateLimit: 1_000 });
    const submitted = await call(api.baseUrl, 'POST', '/v1/bulk-verify', { token, json: { emails: lists.erased } });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    const jobId = submitted.body.jobId as string;
    await pollProgress(api.baseUrl, jobId, token, (progress) => progress.status === 'completed');
    // Written where a byte search finds them: the results, the items, the verdicts kept for reuse.
    expect(addressesIn(api.dataDir, lists.erased)).toHaveLength(lists.erased.length);

    const deleted = await runCli(['bulk', 'delete', jobId], { env: { MAILVERIFY_BASE_URL: api.baseUrl, MAILVERIFY_TOKEN: token } });
    expect(deleted.code, deleted.stderr).toBe(0);
    // With the service still running: not in the database's free pages, nor its write-ahead log.
    expect(addressesIn(api.dataDir, lists.erased)).toEqual([]);
  });

  describe.each(STORE_KINDS)('deleting a running job on the $name store', (kind) => {
    it('stops its RCPTs within a second and keeps no verdict about its addresses', { timeout: 120_000 }, async () => {
      const place = await kind.create();
      places.push(place);
      const { smtp } = slowWorld;
      smtp.reset();
      const api = await service({ dataDir: place.location.dataDir, databaseUrl: place.location.databaseUrl, engineArgs: slowWorld.engineArgs });
      const token = await api.createUser('owner@example.test', { credits: 1_000, rateLimit: 1_000 });
      const submitted = await call(api.baseUrl, 'POST', '/v1/bulk-verify', { token, json: { emails: lists.stopped } });
      const jobId = submitted.body.jobId as string;
      const asked = () => lists.stopped.reduce((sum, email) => sum + smtp.rcptCount(email), 0);
      // Under way: the mail host has answered some of its addresses, and is far from done.
      await expect.poll(asked, { timeout: 20_000, interval: 50 }).toBeGreaterThan(20);
      expect((await call(api.baseUrl, 'DELETE', `/v1/bulk-verify/${jobId}`, { token })).status).toBe(204);

      await sleep(1_000);
      const askedWithinASecond = asked();
      await sleep(3_000);
      expect(asked()).toBe(askedWithinASecond);
      expect(askedWithinASecond).toBeLessThan(lists.stopped.length);
      const kept = await place.query<{ address_key: string }>("SELECT address_key FROM result_cache WHERE address_key LIKE 'stopped-%'");
      expect(kept).toEqual([]);
    });
  });

  describe.each(STORE_KINDS)('serve --retention on the $name store', (kind) => {
    it('deletes finished jobs past the retention by itself; the ledger keeps their charge', { timeout: 60_000 }, async () => {
      const place = await kind.create();
      places.push(place);
      const api = await service({ dataDir: place.location.dataDir, databaseUrl: place.location.databaseUrl, engineArgs: ['--retention', '2s'] });
      const token = await api.createUser('owner@example.test', { credits: 10 });
      const jobId = await completedJob(api, token);
      expect((await call(api.baseUrl, 'GET', `/v1/bulk-verify/${jobId}`, { token })).status).toBe(200);
      let status = 200;
      for (const deadline = Date.now() + 15_000; status === 200 && Date.now() < deadline; await sleep(250)) {
        status = (await call(api.baseUrl, 'GET', `/v1/bulk-verify/${jobId}`, { token })).status;
      }
      expect(status).toBe(404);
      expect(await place.query(`SELECT * FROM job_items WHERE job_id = '${jobId}'`)).toEqual([]);
      // The charge stays in the ledger.
      expect((await call(api.baseUrl, 'GET', '/v1/account', { token })).body.balance).toBe(8);
    });
  });
});
