/**
 * Every route's success response, field by field and type by type, against the contract
 * (docs/api.md "Resources" and "Routes"): the real app over HTTP, the real engine on
 * loopback DNS and SMTP fixtures.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REASON_CODE_NAMES } from '../../src/engine/core/reason-codes.js';
import { hashApiToken } from '../../src/server/auth/api-tokens.js';
import { jobSchema, submitBulkSchema } from '../../src/server/schemas/bulk.js';
import { verifySchema } from '../../src/server/schemas/verification.js';
import { DATABASE_FILE } from '../../src/server/store/open/sqlite-store.js';
import {
  MAIL_DOMAIN,
  MISSING_DOMAIN,
  pollProgress,
  startMailWorld,
  startTestApp,
  type JobProgress,
  type MailWorld,
  type TestApp,
} from '../support/service-app.js';

const CHECK_FIELDS = [
  'format',
  'domainExists',
  'hasMx',
  'domainReachable',
  'smtpStatus',
  'isDisposable',
  'isRole',
  'isBlacklisted',
  'isKnownProvider',
  'isCatchAll',
];
const VERDICTS = ['valid', 'invalid', 'risky', 'catch_all', 'unknown'];
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

const alice = `alice@${MAIL_DOMAIN}`;
const bob = `bob@${MAIL_DOMAIN}`;

function expectVerificationResult(result: Record<string, unknown>, email: string): void {
  // The contract's four fields, the reason code beside them, and the checks not established when there are.
  expect(
    Object.keys(result)
      .filter((key) => key !== 'notEstablished')
      .sort(),
  ).toEqual(['checks', 'email', 'reason', 'reasonCode', 'result']);
  expect(REASON_CODE_NAMES).toContain(result.reasonCode);
  expect(result.email).toBe(email);
  expect(VERDICTS).toContain(result.result);
  expect(typeof result.reason).toBe('string');
  const checks = result.checks as Record<string, unknown>;
  expect(Object.keys(checks).sort()).toEqual([...CHECK_FIELDS].sort());
  for (const field of CHECK_FIELDS) {
    if (field === 'smtpStatus') expect(['valid', 'invalid', 'unknown']).toContain(checks[field]);
    else expect(typeof checks[field], field).toBe('boolean');
  }
}

describe('service routes', () => {
  let world: MailWorld;
  let app: TestApp;
  let token: string;

  beforeAll(async () => {
    world = await startMailWorld({ mailboxes: [alice, bob] });
    app = await startTestApp({ world });
    ({ token } = await app.createUser('owner@example.org', { credits: 100, password: 'correct horse battery staple' }));
  });
  afterAll(async () => {
    await app?.close();
    await world?.close();
  });

  it('GET /healthz answers {status: "ok"} without a token', async () => {
    const reply = await app.call('GET', '/healthz');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: 'ok' });
  });

  it('POST /v1/verify answers the verification result and costs 1 token', async () => {
    const valid = await app.call('POST', '/v1/verify', { token, json: { email: alice } });
    expect(valid.status).toBe(200);
    expect(valid.contentType).toMatch(/^application\/json/);
    expectVerificationResult(valid.body, alice);
    expect(valid.body.result).toBe('valid');
    expect(valid.body.checks.smtpStatus).toBe('valid');

    const unknownMailbox = await app.call('POST', '/v1/verify', { token, json: { email: `nobody@${MAIL_DOMAIN}` } });
    expectVerificationResult(unknownMailbox.body, `nobody@${MAIL_DOMAIN}`);
    expect(unknownMailbox.body.result).toBe('invalid');
    expect(unknownMailbox.body.reason).toMatch(/550/);

    const missingDomain = await app.call('POST', '/v1/verify', { token, json: { email: `x@${MISSING_DOMAIN}` } });
    expect(missingDomain.body.result).toBe('invalid');
    expect(missingDomain.body.checks.domainExists).toBe(false);

    const account = await app.call('GET', '/v1/account', { token });
    expect(account.body.balance).toBe(97);
  });

  it('adds `suggestion` to a result whose domain looks mistyped, in single and bulk answers alike', async () => {
    const single = await app.call('POST', '/v1/verify', { token, json: { email: 'ann@gmial.com' } });
    expect(single.status).toBe(200);
    expect(single.body).toMatchObject({ email: 'ann@gmial.com', result: 'invalid', suggestion: 'ann@gmail.com' });
    expect(
      Object.keys(single.body)
        .filter((key) => key !== 'notEstablished')
        .sort(),
    ).toEqual(['checks', 'email', 'reason', 'reasonCode', 'result', 'suggestion']);
    expect(single.body.reasonCode).toBe('domain_not_found');

    const submitted = await app.call('POST', '/v1/bulk-verify', { token, json: { emails: ['bob@hotmial.com', alice] } });
    const jobId = submitted.body.jobId as string;
    await pollProgress(app.baseUrl, jobId, token, (progress) => progress.status === 'completed');
    const results = (await app.call('GET', `/v1/bulk-verify/${jobId}`, { token })).body.results as { email: string; suggestion?: string }[];
    expect(results.find((result) => result.email === 'bob@hotmial.com')?.suggestion).toBe('bob@hotmail.com');
    expect(results.find((result) => result.email === alice)).not.toHaveProperty('suggestion');
  });

  it('POST /v1/bulk-verify acknowledges {jobId, queued} after de-duplication; progress and results follow the contract', async () => {
    const emails = [alice, ` ${alice.toUpperCase()} `, bob, `nobody@${MAIL_DOMAIN}`, 'not an address', bob];
    const before = (await app.call('GET', '/v1/account', { token })).body.balance as number;
    const submitted = await app.call('POST', '/v1/bulk-verify', { token, json: { emails } });
    expect(submitted.status).toBe(200);
    expect(Object.keys(submitted.body).sort()).toEqual(['jobId', 'queued']);
    expect(typeof submitted.body.jobId).toBe('string');
    expect(submitted.body.queued).toBe(4);
    expect((await app.call('GET', '/v1/account', { token })).body.balance).toBe(before - 4);

    const jobId = submitted.body.jobId as string;
    const seen: JobProgress[] = [];
    await pollProgress(app.baseUrl, jobId, token, (progress) => progress.status === 'completed', seen);
    for (const progress of seen) {
      expect(Object.keys(progress).sort()).toEqual(['job_id', 'processed', 'progress_percent', 'status', 'total']);
      expect(progress.job_id).toBe(jobId);
      expect(['processing', 'completed']).toContain(progress.status);
      expect(progress.total).toBe(4);
      expect(Number.isInteger(progress.processed)).toBe(true);
      expect(Number.isInteger(progress.progress_percent)).toBe(true);
      expect(progress.progress_percent).toBe(Math.floor((100 * progress.processed) / progress.total));
    }
    expect(seen.at(-1)).toMatchObject({ status: 'completed', processed: 4, progress_percent: 100 });

    const job = await app.call('GET', `/v1/bulk-verify/${jobId}`, { token });
    expect(job.status).toBe(200);
    expect(Object.keys(job.body).sort()).toEqual(['id', 'processed', 'results', 'status', 'total']);
    expect(job.body).toMatchObject({ id: jobId, status: 'completed', total: 4, processed: 4 });
    expect(job.body.results).toHaveLength(4);
    for (const result of job.body.results) expectVerificationResult(result, result.email);
    const verdicts = Object.fromEntries(job.body.results.map((result: { email: string; result: string }) => [result.email, result.result]));
    expect(verdicts).toEqual({ [alice]: 'valid', [bob]: 'valid', [`nobody@${MAIL_DOMAIN}`]: 'invalid', 'not an address': 'invalid' });
  });

  it("DELETE /v1/bulk-verify/{job_id} answers 204 and the job is gone: GET is 404, its rows are out of the store; another user's job is a 404", async () => {
    const submitted = await app.call('POST', '/v1/bulk-verify', { token, json: { emails: [alice, bob] } });
    const jobId = submitted.body.jobId as string;
    await pollProgress(app.baseUrl, jobId, token, (progress) => progress.status === 'completed');
    const before = (await app.call('GET', '/v1/account', { token })).body.balance as number;
    const { token: stranger } = await app.createUser('stranger-delete@example.org', { credits: 1 });
    const refused = await app.call('DELETE', `/v1/bulk-verify/${jobId}`, { token: stranger });
    expect([refused.status, refused.body.code]).toEqual([404, 'not_found']);
    expect(await app.store.jobs.readResults(jobId, { after: -1, limit: 10 })).toHaveLength(2);

    const deleted = await app.call('DELETE', `/v1/bulk-verify/${jobId}`, { token });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    for (const path of [`/v1/bulk-verify/${jobId}`, `/v1/bulk-verify/${jobId}/progress`]) {
      const gone = await app.call('GET', path, { token });
      expect([gone.status, gone.body.code], path).toEqual([404, 'not_found']);
    }
    expect(await app.store.jobs.readResults(jobId, { after: -1, limit: 10 })).toEqual([]);
    expect(await app.store.jobs.verdictCounts(jobId)).toEqual([]);
    // The ledger keeps the charge; nothing was left to refund.
    expect((await app.call('GET', '/v1/account', { token })).body.balance).toBe(before);
    expect((await app.call('DELETE', `/v1/bulk-verify/${jobId}`, { token })).status).toBe(404);
  });

  it('POST /v1/auth/login answers a Bearer JWT valid for an hour; wrong credentials get 401', async () => {
    const login = await app.call('POST', '/v1/auth/login', { json: { email: 'owner@example.org', password: 'correct horse battery staple' } });
    expect(login.status).toBe(200);
    expect(Object.keys(login.body).sort()).toEqual(['expiresAt', 'token', 'tokenType']);
    expect(login.body.tokenType).toBe('Bearer');
    expect(login.body.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(login.body.expiresAt).toMatch(ISO_TIME);
    const lifetime = Date.parse(login.body.expiresAt) - Date.now();
    expect(lifetime).toBeGreaterThan(59 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(60 * 60_000);

    const wrong = await app.call('POST', '/v1/auth/login', { json: { email: 'owner@example.org', password: 'wrong' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('unauthorized');
    const nobody = await app.call('POST', '/v1/auth/login', { json: { email: 'nobody@example.org', password: 'x' } });
    expect(nobody.status).toBe(401);
  });

  it('POST/GET/DELETE /v1/tokens create an mv_ token shown once, list it without the secret, and revoke it', async () => {
    const created = await app.call('POST', '/v1/tokens', { token, json: { name: 'laptop' } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'name', 'scopes', 'test', 'token']);
    expect(created.body.name).toBe('laptop');
    expect(created.body.token).toMatch(/^mv_[0-9a-f]{64}$/);
    expect(created.body.createdAt).toMatch(ISO_TIME);
    expect(typeof created.body.id).toBe('string');

    const usable = await app.call('GET', '/v1/account', { token: created.body.token });
    expect(usable.status).toBe(200);
    // Only the SHA-256 of the secret reaches the data file (or its write-ahead log).
    const stored = ['', '-wal'].map((suffix) => readFileSync(join(app.dataDir, DATABASE_FILE + suffix)).toString('latin1')).join('');
    expect(stored).toContain(hashApiToken(created.body.token));
    expect(stored).not.toContain(created.body.token);

    const listed = await app.call('GET', '/v1/tokens', { token });
    expect(listed.status).toBe(200);
    const entry = listed.body.tokens.find((item: { id: string }) => item.id === created.body.id);
    expect(Object.keys(entry).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'scopes', 'test']);
    expect(entry.name).toBe('laptop');
    expect(entry.lastUsedAt).toMatch(ISO_TIME);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.token);

    const revoked = await app.call('DELETE', `/v1/tokens/${created.body.id}`, { token });
    expect(revoked.status).toBe(204);
    expect(revoked.body).toBeUndefined();
    expect((await app.call('GET', '/v1/account', { token: created.body.token })).status).toBe(401);
    expect((await app.call('DELETE', `/v1/tokens/${created.body.id}`, { token })).status).toBe(404);
  });

  it('GET /v1/account answers email, balance, rate limit and whether unknowns are refunded', async () => {
    const account = await app.call('GET', '/v1/account', { token });
    expect(account.status).toBe(200);
    expect(Object.keys(account.body).sort()).toEqual(['balance', 'email', 'rateLimit', 'refundUnknown', 'token']);
    expect(account.body.refundUnknown).toBe(false);
    expect(account.body.email).toBe('owner@example.org');
    expect(Number.isInteger(account.body.balance)).toBe(true);
    expect(account.body.rateLimit).toEqual({ limit: 10_000, windowSeconds: 1 });
  });

  it('accepts a JSON body labelled UTF-8, and the media type in any letter case', async () => {
    for (const contentType of ['application/json; charset=utf-8', 'Application/JSON; Charset="UTF-8"']) {
      const reply = await app.call('POST', '/v1/verify', { token, json: { email: alice }, headers: { 'content-type': contentType } });
      expect(reply.status, contentType).toBe(200);
    }
  });

  it('every authenticated response carries RateLimit-Policy and RateLimit (and the older three), errors included', async () => {
    const { token: broke } = await app.createUser('broke@example.org', { credits: 0 });
    const requests = [
      ['GET', '/v1/account', {}, 200],
      ['GET', '/v1/tokens', {}, 200],
      ['GET', '/v1/bulk-verify/nope', {}, 404],
      ['POST', '/v1/verify', { json: { email: 42 } }, 400],
      ['POST', '/v1/verify', { json: { email: alice }, token: broke }, 402],
    ] as const;
    for (const [method, path, options, status] of requests) {
      const reply = await app.call(method, path, { token, ...options });
      expect(reply.status, path).toBe(status);
      expect(reply.headers['ratelimit-policy'], path).toBe('"default";q=10000;w=1');
      expect(reply.headers.ratelimit, path).toMatch(/^"default";r=\d+;t=[1-9]\d*$/);
      expect(reply.headers['ratelimit-limit'], path).toBe('10000');
      expect(Number(reply.headers['ratelimit-remaining']), path).toBeGreaterThanOrEqual(0);
      expect(Number(reply.headers['ratelimit-reset']), path).toBeGreaterThanOrEqual(1);
    }
  });

  it('GET /v1/openapi.json describes every route from the schemas the routes validate with', async () => {
    const reply = await app.call('GET', '/v1/openapi.json');
    expect(reply.status).toBe(200);
    const document = reply.body;
    expect(document.openapi).toMatch(/^3\./);
    expect(Object.keys(document.paths).sort()).toEqual([
      '/healthz',
      '/v1/account',
      '/v1/auth/device',
      '/v1/auth/device/token',
      '/v1/auth/login',
      '/v1/bulk-verify',
      '/v1/bulk-verify/{job_id}',
      '/v1/bulk-verify/{job_id}/progress',
      '/v1/evidence',
      '/v1/evidence/hooks/sendgrid/{secret}',
      '/v1/evidence/hooks/sns/{secret}',
      '/v1/evidence/receivers',
      '/v1/evidence/receivers/{id}',
      '/v1/openapi.json',
      '/v1/tokens',
      '/v1/tokens/{id}',
      '/v1/verify',
      '/v1/webhooks',
      '/v1/webhooks/{id}',
      '/v1/webhooks/{id}/test',
    ]);
    expect(Object.keys(document.paths['/v1/webhooks']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(document.paths['/v1/bulk-verify/{job_id}']).sort()).toEqual(['delete', 'get']);
    expect(document.paths['/v1/webhooks'].post.responses['201'].content['application/json'].schema.required).toContain('secret');
    // The document holds the very schemas the routes validate and serialize with.
    const verify = document.paths['/v1/verify'].post;
    expect(verify.requestBody.content['application/json'].schema).toEqual(verifySchema.body);
    expect(verify.responses['200'].content['application/json'].schema).toEqual(verifySchema.response[200]);
    expect(document.paths['/v1/bulk-verify'].post.requestBody.content['application/json'].schema).toEqual(submitBulkSchema.body);
    expect(document.paths['/v1/bulk-verify/{job_id}'].get.responses['200'].content['application/json'].schema).toEqual(jobSchema.response[200]);
    expect(Object.keys(verify.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '402', '429', '500']));
    expect(verify.security).toEqual([{ bearer: ['verify'] }]);
    expect(verify.parameters).toContainEqual(expect.objectContaining({ name: 'idempotency-key', in: 'header' }));
    const job = document.paths['/v1/bulk-verify/{job_id}'].get;
    expect(job.parameters).toContainEqual(expect.objectContaining({ name: 'job_id', in: 'path', required: true }));
    const resultSchema = job.responses['200'].content['application/json'].schema.properties.results.items;
    expect(resultSchema.required).toEqual(['email', 'result', 'checks', 'reason', 'reasonCode']);
    // The reason codes as an enum, for generated clients.
    expect(resultSchema.properties.reasonCode.enum).toEqual(REASON_CODE_NAMES);
    expect(resultSchema.properties.reasonCode.enum).toContain('port25_blocked');
    expect(document.paths['/v1/auth/login'].post.security).toBeUndefined();
    // An ESP posts to a receiver with no bearer token; managing receivers needs the evidence scope.
    expect(document.paths['/v1/evidence/hooks/sendgrid/{secret}'].post.security).toEqual([]);
    expect(document.paths['/v1/evidence/receivers'].post.security).toEqual([{ bearer: ['evidence'] }]);
    expect(document.paths['/v1/auth/device'].post.requestBody.required).toBe(false);
    expect(verify.requestBody.required).toBe(true);
    // A device's poll speaks OAuth: a form or JSON in, OAuth's error JSON out.
    const poll = document.paths['/v1/auth/device/token'].post;
    expect(poll.security).toBeUndefined();
    expect(Object.keys(poll.requestBody.content)).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    expect(poll.responses['400'].content['application/json'].schema.anyOf[0].properties.error.enum).toContain('authorization_pending');
    expect(document.paths['/v1/tokens/{id}'].delete.responses['404'].content['application/problem+json']).toBeDefined();
  });
});
