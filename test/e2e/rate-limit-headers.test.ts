import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliSandbox, type CliSandbox } from '../support/cli-sandbox.js';
import { metric } from '../support/metrics.js';
import { startService, type RunningService } from '../support/service.js';

/**
 * Rate-limit fields (docs/api.md "Limits and headers", draft-ietf-httpapi-ratelimit-headers):
 * every authenticated answer of the real service carries `RateLimit-Policy` and `RateLimit`, and
 * the built CLI, run at its account's limit, slows down before the service refuses it: the
 * service's own request counter shows no 429.
 */

const EMAIL = 'paced@example.test';
const LIMIT = 3;
const POLICY = new RegExp(`^"default";q=${LIMIT};w=1$`);
const STATE = /^"default";r=(\d+);t=(\d+)$/;

let service: RunningService;
let live: string;
let test: string;
let scrapeUrl: string;
let cli: CliSandbox;

async function call(method: string, path: string, token: string, body?: unknown) {
  const response = await request(`${service.baseUrl}${path}`, {
    method: method as 'GET',
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

const scrape = async () => (await fetch(scrapeUrl)).text();
const refusals = (text: string) => metric(text, 'mailverify_http_requests_total', { status: '429' });
const answered = (text: string) => metric(text, 'mailverify_http_requests_total');

beforeAll(async () => {
  service = await startService({ engineArgs: ['--metrics-port', '0', '--retry-schedule', 'none'] });
  while (!service.stderr().includes('metrics on')) await sleep(20);
  scrapeUrl = /mailverify: metrics on (\S+)/.exec(service.stderr())![1]!;
  live = await service.createUser(EMAIL, { credits: 100, rateLimit: LIMIT });
  test = (await call('POST', '/v1/tokens', live, { name: 'paced', test: true })).body.token as string;
  cli = await createCliSandbox({ MAILVERIFY_BASE_URL: service.baseUrl, MAILVERIFY_TOKEN: test });
});

afterAll(async () => {
  await cli?.close();
  await service?.stop();
});

describe('RateLimit-Policy and RateLimit', () => {
  it('are on the answer of every authenticated route of the OpenAPI document, errors included', async () => {
    const document = (await call('GET', '/v1/openapi.json', live)).body as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    const routes = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => (operation.security ?? []).length > 0)
        .map(([method, operation]) => [method.toUpperCase(), path.replaceAll(/\{[^}]+\}/g, 'no-such-id'), operation] as const),
    );
    expect(routes.length).toBeGreaterThanOrEqual(10);
    for (const [method, path] of routes) {
      // Paced by hand: this test is not the CLI, and the fields are on 429s too.
      await sleep(1_000 / LIMIT);
      const answer = await call(method, path, live, method === 'POST' ? {} : undefined);
      const where = `${method} ${path} → ${answer.status}`;
      expect(answer.headers['ratelimit-policy'], where).toMatch(POLICY);
      const state = STATE.exec(String(answer.headers.ratelimit));
      expect(state, where).not.toBeNull();
      expect(Number(state![1]), where).toBeLessThanOrEqual(LIMIT);
      expect(Number(state![2]), where).toBeGreaterThanOrEqual(1);
      if (answer.status === 429) expect(Number(answer.headers['retry-after']), where).toBeGreaterThanOrEqual(1);
    }
  });

  it('are followed by the CLI: jobs read and addresses verified at its limit get no 429', { timeout: 120_000 }, async () => {
    // Nine sandbox jobs made by hand, slowly; then one CLI run reads them all at once, and another verifies ten addresses.
    const jobIds: string[] = [];
    for (let at = 0; at < 9; at += 1) {
      await sleep(1_000 / LIMIT + 50);
      jobIds.push((await call('POST', '/v1/bulk-verify', test, { emails: [`valid+${at}@example.com`] })).body.jobId as string);
    }
    await sleep(2_000);
    const before = await scrape();
    const results = await cli.run(['bulk', 'results', ...jobIds, '--format', 'ndjson', '--wait']);
    expect(results.code, results.stderr).toBe(0);
    expect(results.stdout.trim().split('\n')).toHaveLength(9);
    // A new process knows nothing of the window the last one spent: its first request goes alone and
    // would find that window full. The pacing is a process's own, so the next run starts in a new window.
    await sleep(1_000);
    const verify = await cli.run(['verify', '--json', ...Array.from({ length: 10 }, (_, at) => `role+${at}@example.com`)]);
    expect(verify.code, verify.stderr).toBe(0);
    const after = await scrape();
    // Well past the limit in all: the CLI had to wait for several windows, and was refused none of it.
    expect(answered(after) - answered(before)).toBeGreaterThan(4 * LIMIT);
    expect(refusals(after) - refusals(before)).toBe(0);
  });
});
