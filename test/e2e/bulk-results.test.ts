/**
 * `GET /v1/bulk-verify/{id}` of a 50,000-result job from the built `mailverify serve`, on each
 * store: the body is exactly the job with every result in order, the server's peak memory grows by
 * far less than the body (it is written page by page from the store), and paging and verdict
 * filters return each result exactly once. The results are written straight into the store (as a
 * runner would, under a lease), so the test does not wait for 50,000 SMTP probes. Needs
 * `npm run build` first.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERDICTS, type VerificationResult } from '../../src/engine/core/types.js';
import { generateApiToken, hashApiToken } from '../../src/server/auth/api-tokens.js';
import { openStore } from '../../src/server/store/open/open-store.js';
import { call, expectProblem } from '../support/service-app.js';
import { runCli, startService, type RunningService } from '../support/service.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';

const TOTAL = 50_000;

/** A result for every address, the verdicts taking turns, so that filters have something to pick. */
function resultAt(index: number): VerificationResult {
  const verdict = VERDICTS[index % VERDICTS.length]!;
  return {
    email: `user${index}@domain${index % 50}.test`,
    result: verdict,
    reason: `stored result ${index}`,
    reasonCode: verdict === 'valid' ? 'accepted' : 'timeout',
    checks: {
      format: true,
      domainExists: true,
      hasMx: true,
      domainReachable: false,
      smtpStatus: verdict === 'valid' ? 'valid' : 'unknown',
      isDisposable: false,
      isRole: false,
      isBlacklisted: false,
      isKnownProvider: false,
      isCatchAll: verdict === 'catch_all',
    },
  };
}
const expected = Array.from({ length: TOTAL }, (_, index) => resultAt(index));

/** Peak resident memory of a process so far, in bytes (Linux). */
function peakRss(pid: number): number {
  const kilobytes = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kilobytes) * 1024;
}

describe.each(STORE_KINDS)('the results of a 50,000-address job on the $name store', (kind) => {
  let place: StoreFixture;
  let service: RunningService;
  let token: string;
  let jobId: string;
  const get = async (query = '') => call(service.baseUrl, 'GET', `/v1/bulk-verify/${jobId}${query}`, { token });

  beforeAll(async () => {
    place = await kind.create();
    const store = await openStore(place.location);
    try {
      const user = await store.accounts.createUser({ email: 'big@example.test', passwordHash: null, balance: TOTAL, rateLimit: 10_000, rateWindowSeconds: 1 });
      token = generateApiToken();
      await store.tokens.createApiToken(user.id, 'test', hashApiToken(token));
      const created = await store.jobs.createJob(
        user.id,
        expected.map((result) => result.email),
      );
      if (!created.ok) throw new Error('the job was not created');
      jobId = created.jobId;
      for (;;) {
        const chunk = await store.work.claimWork({ maxItems: TOTAL, leaseMs: 600_000 });
        if (!chunk) break;
        const answers = chunk.items.map((item) => ({ lease: chunk.lease, jobId, position: item.position, result: expected[item.position]! }));
        await store.work.saveResults(answers);
      }
    } finally {
      await store.close();
    }
    // The API alone: no runner of its own to touch the job.
    service = await startService({ ...place.location, engineArgs: ['--no-worker'] });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await place?.close();
  });

  it("answers every result in job order, in the contract's shape, with peak memory growing by less than the body", async () => {
    // Warm up: the same 50,000 rows through the same code, in pages of 5,000, so that what is
    // measured next is what one answer of the whole list costs, not a process's first heavy work.
    for (let cursor: string | null = ''; cursor !== null;) {
      const page = await get(`?limit=5000${cursor === '' ? '' : `&cursor=${cursor}`}`);
      expect(page.status).toBe(200);
      cursor = page.body.next_cursor;
    }
    const before = peakRss(service.pid);
    const response = await request(`${service.baseUrl}/v1/bulk-verify/${jobId}`, { headers: { authorization: `Bearer ${token}` } });
    const text = await response.body.text();
    const growth = peakRss(service.pid) - before;

    expect(response.statusCode).toBe(200);
    expect(String(response.headers['content-type'])).toMatch(/^application\/json/);
    expect(JSON.parse(text)).toEqual({ id: jobId, status: 'completed', total: TOTAL, processed: TOTAL, results: expected });
    expect(text.length).toBeGreaterThan(10 * 1024 * 1024);
    // Built in memory the answer cost 60-110 MB for this job (measured before it was streamed);
    // streamed it is a few pages: 1.5-5 MB measured alone, up to 18 MB on PostgreSQL with other
    // test files running beside it (collections lag, the driver's buffers). Twice the body (about
    // 31 MB) leaves room for a busy machine and still fails an answer built whole in memory.
    expect(growth, `peak RSS grew ${growth} bytes for a ${text.length}-byte body`).toBeLessThan(2 * text.length);
  });

  it('pages through every result exactly once, with next_cursor null after the last page', async () => {
    const pages: Array<{ results: VerificationResult[]; next_cursor: string | null }> = [];
    let query = '?limit=7000';
    for (;;) {
      const page = await get(query);
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ id: jobId, status: 'completed', total: TOTAL, processed: TOTAL });
      pages.push(page.body);
      if (page.body.next_cursor === null) break;
      query = `?limit=7000&cursor=${page.body.next_cursor}`;
    }
    expect(pages.map((page) => page.results.length)).toEqual([7000, 7000, 7000, 7000, 7000, 7000, 7000, 1000]);
    expect(pages.flatMap((page) => page.results)).toEqual(expected);
  });

  it('filters by verdict, alone and in pages', async () => {
    const wanted = expected.filter((result) => result.result === 'valid' || result.result === 'catch_all');
    const filtered = await get('?result=valid,catch_all');
    expect(filtered.body).toMatchObject({ id: jobId, status: 'completed', total: TOTAL, processed: TOTAL });
    expect(filtered.body.results).toEqual(wanted);
    expect(filtered.body).not.toHaveProperty('next_cursor');

    const catchAll = expected.filter((result) => result.result === 'catch_all');
    const first = await get('?result=catch_all&limit=6000');
    expect(first.body.results).toEqual(catchAll.slice(0, 6000));
    const rest = await get(`?result=catch_all&limit=6000&cursor=${first.body.next_cursor}`);
    expect(rest.body.results).toEqual(catchAll.slice(6000));
    expect(rest.body.next_cursor).toBeNull();
  });

  it('is fetched by `mailverify bulk results` in pages of 5,000, every result once', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mailverify-results-home-'));
    try {
      const env = { HOME: home, XDG_CONFIG_HOME: home, XDG_STATE_HOME: home, MAILVERIFY_BASE_URL: service.baseUrl, MAILVERIFY_TOKEN: token };
      const cli = await runCli(['--debug', 'bulk', 'results', jobId, '--format', 'ndjson'], { env });
      expect(cli.code, cli.stderr).toBe(0);
      const lines = cli.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as VerificationResult);
      expect(lines.map((line) => line.email)).toEqual(expected.map((result) => result.email));
      // --debug traces each request: `GET <url> [headers] → 200 in N ms`.
      const pageRequests = cli.stderr.split('\n').filter((line) => /GET \S+\/v1\/bulk-verify\/[^/\s?]+\?limit=5000\S* .*→ 200/.test(line));
      expect(pageRequests).toHaveLength(TOTAL / 5000);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('answers 400 problem+json for a bad verdict, page size, cursor or parameter', async () => {
    for (const query of ['?result=bogus', '?result=valid,', '?limit=0', '?limit=10001', '?limit=ten', '?cursor=!!', '?cursor=bm90LW91cnM', '?page=2']) {
      expectProblem(await get(query), 400, 'invalid_request');
    }
    const openapi = await call(service.baseUrl, 'GET', '/v1/openapi.json');
    const parameters = openapi.body.paths['/v1/bulk-verify/{job_id}'].get.parameters as Array<{ name: string; in: string }>;
    expect(parameters.filter((each) => each.in === 'query').map((each) => each.name)).toEqual(['result', 'limit', 'cursor']);
  });
});
