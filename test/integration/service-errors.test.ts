/**
 * Bad input is a 4xx with a problem+json body and its `code`, never a 500 (docs/api.md), and it
 * costs nothing; unknown jobs and other users' jobs are 404 on both GET routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, MAIL_DOMAIN, startMailWorld, startTestApp, type CallOptions, type MailWorld, type TestApp } from '../support/service-app.js';

const json = { 'content-type': 'application/json' };

describe('bad input and unknown jobs', () => {
  let world: MailWorld;
  let app: TestApp;
  let token: string;
  const credits = 1_000;

  beforeAll(async () => {
    world = await startMailWorld({ mailboxes: [`alice@${MAIL_DOMAIN}`] });
    app = await startTestApp({ world });
    ({ token } = await app.createUser('input@example.org', { credits }));
  });
  afterAll(async () => {
    // Every case above was refused before anything was charged.
    expect((await app.call('GET', '/v1/account', { token })).body.balance).toBe(credits);
    await app?.close();
    await world?.close();
  });

  const cases: Array<[string, 'POST', string, CallOptions, number, string]> = [
    ['invalid JSON (verify)', 'POST', '/v1/verify', { rawBody: '{"email": "a@b.test"', headers: json }, 400, 'invalid_request'],
    ['invalid JSON (bulk)', 'POST', '/v1/bulk-verify', { rawBody: '{emails: [}', headers: json }, 400, 'invalid_request'],
    ['an empty JSON body', 'POST', '/v1/verify', { rawBody: '', headers: json }, 400, 'invalid_request'],
    ['no body at all', 'POST', '/v1/bulk-verify', {}, 400, 'invalid_request'],
    ['a JSON array body', 'POST', '/v1/verify', { json: ['a@b.test'] }, 400, 'invalid_request'],
    ['a JSON string body', 'POST', '/v1/bulk-verify', { json: 'a@b.test' }, 400, 'invalid_request'],
    ['a JSON null body', 'POST', '/v1/bulk-verify', { rawBody: 'null', headers: json }, 400, 'invalid_request'],
    ['a JSON number body', 'POST', '/v1/verify', { json: 1 }, 400, 'invalid_request'],
    ['an unknown field beside email', 'POST', '/v1/verify', { json: { email: 'a@b.test', idempotency_key: 'k' } }, 400, 'invalid_request'],
    ['an unknown field beside emails', 'POST', '/v1/bulk-verify', { json: { emails: ['a@b.test'], webhook: 'http://x.test' } }, 400, 'invalid_request'],
    ['a prototype-poisoning body', 'POST', '/v1/verify', { rawBody: '{"email":"a@b.test","__proto__":{"x":1}}', headers: json }, 400, 'invalid_request'],
    ['missing email', 'POST', '/v1/verify', { json: { address: 'a@b.test' } }, 400, 'invalid_request'],
    ['missing emails', 'POST', '/v1/bulk-verify', { json: { email: 'a@b.test' } }, 400, 'invalid_request'],
    ['email of the wrong type', 'POST', '/v1/verify', { json: { email: 42 } }, 400, 'invalid_request'],
    ['email null', 'POST', '/v1/verify', { json: { email: null } }, 400, 'invalid_request'],
    ['emails not an array', 'POST', '/v1/bulk-verify', { json: { emails: 'a@b.test' } }, 400, 'invalid_request'],
    ['emails holding a non-string', 'POST', '/v1/bulk-verify', { json: { emails: ['a@b.test', 7] } }, 400, 'invalid_request'],
    ['emails holding null', 'POST', '/v1/bulk-verify', { json: { emails: [null] } }, 400, 'invalid_request'],
    ['emails holding a list', 'POST', '/v1/bulk-verify', { json: { emails: [['a@b.test']] } }, 400, 'invalid_request'],
    ['an empty list', 'POST', '/v1/bulk-verify', { json: { emails: [] } }, 400, 'invalid_request'],
    ['50,001 emails', 'POST', '/v1/bulk-verify', { json: { emails: Array.from({ length: 50_001 }, (_, i) => `user${i}@x.test`) } }, 413, 'payload_too_large'],
    ['a body over 8 MiB', 'POST', '/v1/bulk-verify', { json: { emails: ['a'.repeat(9 * 1024 * 1024)] } }, 413, 'payload_too_large'],
    ['text/plain', 'POST', '/v1/verify', { rawBody: 'a@b.test', headers: { 'content-type': 'text/plain' } }, 415, 'unsupported_media_type'],
    [
      'a form body',
      'POST',
      '/v1/bulk-verify',
      { rawBody: 'emails=a%40b.test', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      415,
      'unsupported_media_type',
    ],
    [
      'a multipart body',
      'POST',
      '/v1/verify',
      {
        rawBody: '--b\r\nContent-Disposition: form-data; name="email"\r\n\r\na@b.test\r\n--b--\r\n',
        headers: { 'content-type': 'multipart/form-data; boundary=b' },
      },
      415,
      'unsupported_media_type',
    ],
    [
      'JSON labelled UTF-16',
      'POST',
      '/v1/verify',
      { json: { email: 'a@b.test' }, headers: { 'content-type': 'application/json; charset=utf-16' } },
      415,
      'unsupported_media_type',
    ],
    ['a JSON body without a content type', 'POST', '/v1/verify', { rawBody: '{"email":"a@b.test"}' }, 415, 'unsupported_media_type'],
    ['an empty Idempotency-Key', 'POST', '/v1/bulk-verify', { json: { emails: ['a@b.test'] }, headers: { 'idempotency-key': '' } }, 400, 'invalid_request'],
    ['a token name of the wrong type', 'POST', '/v1/tokens', { json: { name: ['x'] } }, 400, 'invalid_request'],
  ];

  it.each(cases)('answers %s with the right 4xx', async (_name, method, path, options, status, code) => {
    expectProblem(await app.call(method, path, { ...options, token }), status, code);
  });

  it('names the unknown field it refuses', async () => {
    const reply = await app.call('POST', '/v1/verify', { token, json: { email: 'a@b.test', idempotency_key: 'k' } });
    expect(reply.body.detail).toBe('Unknown field "idempotency_key" in the body.');
  });

  it('answers a login with a malformed body with 400, not 401 or 500', async () => {
    expectProblem(await app.call('POST', '/v1/auth/login', { json: { email: 'a@b.test' } }), 400, 'invalid_request');
    expectProblem(await app.call('POST', '/v1/auth/login', { rawBody: 'nope', headers: json }), 400, 'invalid_request');
  });

  it('answers 404 for an unknown job id on both GET routes', async () => {
    const unknownIds = ['00000000-0000-4000-8000-000000000000', '..%2F..%2Fetc', "'%20OR%201=1", '%00', '%E2%98%83', 'a%20b', 'x'.repeat(500)];
    for (const id of unknownIds) {
      expectProblem(await app.call('GET', `/v1/bulk-verify/${id}`, { token }), 404, 'not_found');
      expectProblem(await app.call('GET', `/v1/bulk-verify/${id}/progress`, { token }), 404, 'not_found');
    }
    // A path that is not even a URL (a broken escape) is a malformed request, still problem+json.
    expectProblem(await app.call('GET', '/v1/bulk-verify/%zz', { token }), 400, 'invalid_request');
  });

  it("answers 404 for another user's job on both GET routes, as for a job that does not exist", async () => {
    const owner = await app.createUser('owner@example.org', { credits: 5 });
    const submitted = await app.call('POST', '/v1/bulk-verify', { token: owner.token, json: { emails: [`alice@${MAIL_DOMAIN}`] } });
    const jobId = submitted.body.jobId as string;
    expect((await app.call('GET', `/v1/bulk-verify/${jobId}/progress`, { token: owner.token })).status).toBe(200);
    const job = await app.call('GET', `/v1/bulk-verify/${jobId}`, { token });
    const progress = await app.call('GET', `/v1/bulk-verify/${jobId}/progress`, { token });
    expectProblem(job, 404, 'not_found');
    expectProblem(progress, 404, 'not_found');
    expect(job.body.detail).toBe(`No job ${jobId}.`);
  });

  it('answers 404 problem+json for an unknown route, and 405 with Allow for a known path, with or without a token', async () => {
    expectProblem(await app.call('GET', '/v1/nothing-here'), 404, 'not_found');
    expectProblem(await app.call('GET', '/v1/nothing-here', { token }), 404, 'not_found');
    for (const method of ['PUT', 'OPTIONS', 'GET'] as const) {
      const reply = await app.call(method, '/v1/verify', { token, json: method === 'OPTIONS' ? undefined : { email: 'a@b.test' } });
      expectProblem(reply, 405, 'method_not_allowed');
      expect(reply.headers.allow).toBe('POST');
    }
  });
});
