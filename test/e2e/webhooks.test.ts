/**
 * Webhooks end to end (docs/api.md "Webhooks"): the built CLI's `serve` and `worker` processes
 * deliver to a real receiver on loopback that checks every signature with its own HMAC code. The
 * retry schedule is shortened with MAILVERIFY_WEBHOOK_RETRY_SCHEDULE (for tests only).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { call, expectProblem, pollProgress } from '../support/service-app.js';
import { runCli, startService, startWorker, type RunningService, type RunningWorker } from '../support/service.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';
import { signatureMatches, startWebhookReceiver, type Answer, type WebhookReceiver } from '../support/webhook-receiver.js';

const FAST_RETRIES = { MAILVERIFY_WEBHOOK_RETRY_SCHEDULE: '0,1,1' };
/** The receivers are on loopback: webhooks there need a flag of their own (the engine's --allow-private-networks does not cover them). */
const PRIVATE_WEBHOOKS = { MAILVERIFY_ALLOW_PRIVATE_WEBHOOKS: '1' };
/** Standard Webhooks' tolerance: a receiver refuses a timestamp further than this from its clock. */
const TOLERANCE_S = 5 * 60;

const running: Array<RunningService | RunningWorker> = [];
const receivers: WebhookReceiver[] = [];
const places: StoreFixture[] = [];

afterEach(async () => {
  for (const each of running.splice(0).reverse()) await each.stop();
  for (const receiver of receivers.splice(0)) await receiver.close();
  for (const place of places.splice(0)) await place.close();
});

async function service(options: Parameters<typeof startService>[0] = {}): Promise<{ api: RunningService; token: string }> {
  const api = await startService({ ...options, env: { ...FAST_RETRIES, ...PRIVATE_WEBHOOKS, ...options.env } });
  running.push(api);
  return { api, token: await api.createUser('hooks@example.test', { credits: 100, rateLimit: 1_000 }) };
}

async function receiver(answer: (index: number) => Answer): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(answer);
  receivers.push(started);
  return started;
}

/** Registers the receiver as an endpoint of the token's account; the receiver learns the secret. */
async function register(api: RunningService, token: string, target: WebhookReceiver): Promise<string> {
  const created = await call(api.baseUrl, 'POST', '/v1/webhooks', { token, json: { url: target.url, description: 'test receiver' } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body.secret).toMatch(/^whsec_/);
  target.secret = created.body.secret as string;
  return created.body.id as string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webhook deliveries', () => {
  it("the receiver's own HMAC code agrees with the spec's test vector", () => {
    expect(
      signatureMatches(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        '1614265330',
        '{"test": 2432232314}',
        'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
      ),
    ).toBe(true);
    expect(
      signatureMatches(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        '1614265331',
        '{"test": 2432232314}',
        'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
      ),
    ).toBe(false);
  });

  it('announces a completed bulk job, retrying 500 twice then done on 200: three signed attempts with one webhook-id', { timeout: 60_000 }, async () => {
    const { api, token } = await service();
    const target = await receiver((index) => (index < 2 ? 500 : 200));
    const endpointId = await register(api, token, target);
    // Addresses that fail the syntax check are answered without DNS or SMTP: the job completes at once.
    const submitted = await call(api.baseUrl, 'POST', '/v1/bulk-verify', { token, json: { emails: ['not-an-address', 'also@@broken'] } });
    const jobId = submitted.body.jobId as string;
    await pollProgress(api.baseUrl, jobId, token, (progress) => progress.status === 'completed');

    const deliveries = await target.waitFor(3);
    await sleep(2_500);
    expect(deliveries).toHaveLength(3);
    expect(new Set(deliveries.map((delivery) => delivery.id)).size).toBe(1);
    expect(deliveries[0]!.id).toMatch(/^msg_/);
    for (const delivery of deliveries) {
      expect(delivery.signed).toBe(true);
      expect(Math.abs(delivery.receivedAt / 1_000 - delivery.timestamp)).toBeLessThan(TOLERANCE_S);
      expect(delivery.body).toBe(deliveries[0]!.body);
    }
    // The schedule's waits (1 s each, ±10%) between the attempts.
    expect(deliveries[1]!.receivedAt - deliveries[0]!.receivedAt).toBeGreaterThanOrEqual(850);
    expect(JSON.parse(deliveries[0]!.body)).toMatchObject({
      type: 'bulk_job.completed',
      data: { jobId, status: 'completed', total: 2, counts: { invalid: 2, valid: 0 }, resultsUrl: `/v1/bulk-verify/${jobId}` },
    });

    const listed = await call(api.baseUrl, 'GET', '/v1/webhooks', { token });
    expect(listed.body.webhooks).toEqual([expect.objectContaining({ id: endpointId, url: target.url, description: 'test receiver', disabled: false })]);
    expect(listed.body.webhooks[0].attempts.map((attempt: { status: number }) => attempt.status)).toEqual([200, 500, 500]);
    expect(listed.body.webhooks[0]).not.toHaveProperty('secret');
  });

  it('disables an endpoint that answers 410: nothing more is sent to it', { timeout: 60_000 }, async () => {
    const { api, token } = await service();
    const target = await receiver(() => 410);
    const endpointId = await register(api, token, target);
    const test = await call(api.baseUrl, 'POST', `/v1/webhooks/${endpointId}/test`, { token });
    expect(test.status).toBe(202);
    const [delivery] = await target.waitFor(1);
    expect(delivery).toMatchObject({ id: test.body.eventId, signed: true });
    expect(JSON.parse(delivery!.body)).toMatchObject({ type: 'webhook.test', data: { endpointId } });
    await sleep(1_000);
    expect((await call(api.baseUrl, 'GET', '/v1/webhooks', { token })).body.webhooks[0]).toMatchObject({
      disabled: true,
      disabledReason: 'The endpoint answered 410 Gone.',
      attempts: [{ status: 410 }],
    });
    // The reason is shown where its owner looks: `mailverify webhooks list` too.
    const listed = await runCli(['webhooks', 'list'], { env: { MAILVERIFY_BASE_URL: api.baseUrl, MAILVERIFY_TOKEN: token } });
    expect(listed.stdout).toBe(`${endpointId}  ${target.url}  disabled: The endpoint answered 410 Gone.\n`);
    expectProblem(await call(api.baseUrl, 'POST', `/v1/webhooks/${endpointId}/test`, { token }), 400, 'invalid_request');
    await sleep(1_500);
    expect(target.deliveries).toHaveLength(1);

    expect((await call(api.baseUrl, 'DELETE', `/v1/webhooks/${endpointId}`, { token })).status).toBe(204);
    expectProblem(await call(api.baseUrl, 'DELETE', `/v1/webhooks/${endpointId}`, { token }), 404, 'not_found');
    expect((await call(api.baseUrl, 'GET', '/v1/webhooks', { token })).body.webhooks).toEqual([]);
  });

  it(
    'refuses an endpoint on a loopback or private address without --allow-private-webhooks, even with --allow-private-networks',
    { timeout: 60_000 },
    async () => {
      const { api, token } = await service({ env: { MAILVERIFY_ALLOW_PRIVATE_WEBHOOKS: '' } });
      for (const url of ['http://127.0.0.1:9/hooks', 'http://[::1]/hooks', 'http://10.1.2.3/']) {
        const refused = await call(api.baseUrl, 'POST', '/v1/webhooks', { token, json: { url } });
        expectProblem(refused, 400, 'invalid_request');
        expect(refused.body.detail).toBe(
          `Webhooks are not sent to ${new URL(url).hostname}: a receiver must resolve, and only to public addresses (a receiver on a private network, such as a test one, needs the service run with --allow-private-webhooks).`,
        );
      }
      // A name that resolves into a private range and one that does not resolve: refused alike, nothing told of either.
      const named = await call(api.baseUrl, 'POST', '/v1/webhooks', { token, json: { url: 'http://localhost:9/hooks' } });
      expectProblem(named, 400, 'invalid_request');
      expect(named.body.detail).toBe(
        'Webhooks are not sent to localhost: a receiver must resolve, and only to public addresses (a receiver on a private network, such as a test one, needs the service run with --allow-private-webhooks).',
      );
      const unresolved = await call(api.baseUrl, 'POST', '/v1/webhooks', { token, json: { url: 'http://hooks.example.invalid/' } });
      expectProblem(unresolved, 400, 'invalid_request');
      expect(unresolved.body.detail).toBe(
        'Webhooks are not sent to hooks.example.invalid: a receiver must resolve, and only to public addresses (a receiver on a private network, such as a test one, needs the service run with --allow-private-webhooks).',
      );
      expect(JSON.stringify(named.body)).not.toMatch(/127\.0\.0\.1|::1/);
      expectProblem(await call(api.baseUrl, 'POST', '/v1/webhooks', { token, json: { url: 'ftp://example.test/' } }), 400, 'invalid_request');
      expect((await call(api.baseUrl, 'GET', '/v1/webhooks', { token })).body.webhooks).toEqual([]);
    },
  );

  it('refuses link-local and cloud metadata addresses with every flag', { timeout: 60_000 }, async () => {
    const { api, token } = await service({ engineArgs: ['--allow-private-webhooks'] });
    for (const url of [
      'http://169.254.169.254/',
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00:ec2::254]/',
      'http://[::ffff:169.254.169.254]/',
      'http://169.254.1.1:8080/',
    ]) {
      const refused = await call(api.baseUrl, 'POST', '/v1/webhooks', { token, json: { url } });
      expectProblem(refused, 400, 'invalid_request');
      expect(refused.body.detail, url).toMatch(
        /^Webhooks are not sent to .*: a receiver must resolve, and only to public addresses \(a receiver on a private network, such as a test one, needs the service run with --allow-private-webhooks\)\.$/,
      );
    }
    expect((await call(api.baseUrl, 'GET', '/v1/webhooks', { token })).body.webhooks).toEqual([]);
  });

  it("caps an account's endpoints (the 11th is a 409) and its test events a minute (a 429 beyond)", { timeout: 60_000 }, async () => {
    const { api, token } = await service();
    const target = await receiver(() => 204);
    const ids: string[] = [];
    for (let n = 0; n < 10; n += 1) ids.push(await register(api, token, target));
    const eleventh = await call(api.baseUrl, 'POST', '/v1/webhooks', { token, json: { url: target.url } });
    expectProblem(eleventh, 409, 'webhook_endpoint_limit');
    expect(eleventh.body.detail).toMatch(/10 webhook endpoints/);
    // Another account has its own ten.
    const other = await api.createUser('other@example.test', { credits: 1, rateLimit: 1_000 });
    expect((await call(api.baseUrl, 'POST', '/v1/webhooks', { token: other, json: { url: target.url } })).status).toBe(201);
    // Removing one makes room.
    expect((await call(api.baseUrl, 'DELETE', `/v1/webhooks/${ids.pop()}`, { token })).status).toBe(204);
    ids.push(await register(api, token, target));

    // Five test events a minute by default, whichever endpoints they go to.
    for (let n = 0; n < 5; n += 1) expect((await call(api.baseUrl, 'POST', `/v1/webhooks/${ids[n % 2]}/test`, { token })).status).toBe(202);
    const sixth = await call(api.baseUrl, 'POST', `/v1/webhooks/${ids[2]}/test`, { token });
    expectProblem(sixth, 429, 'webhook_test_limit');
    expect(sixth.headers['retry-after']).toBe('60');
    await target.waitFor(5);
  });
});

describe('webhook deliveries are fair across accounts', () => {
  it(
    "one account's 50 test events at a receiver that never answers do not hold back another's bulk_job.completed (within 5 s); metrics show it",
    { timeout: 90_000 },
    async () => {
      const { api, token } = await service({ engineArgs: ['--webhook-tests-per-minute', '100', '--metrics-port', '0'] });
      const silent = await receiver(() => 'hold');
      const silentId = await register(api, token, silent);
      for (let n = 0; n < 50; n += 1) expect((await call(api.baseUrl, 'POST', `/v1/webhooks/${silentId}/test`, { token })).status).toBe(202);
      // The silent receiver holds the account's first attempts open (each up to 15 s).
      await silent.waitFor(1);

      const other = await api.createUser('patient@example.test', { credits: 10, rateLimit: 1_000 });
      const answering = await receiver(() => 204);
      await register(api, other, answering);
      const submitted = await call(api.baseUrl, 'POST', '/v1/bulk-verify', { token: other, json: { emails: ['not-an-address'] } });
      const jobId = submitted.body.jobId as string;
      await pollProgress(api.baseUrl, jobId, other, (progress) => progress.status === 'completed');
      const completedAt = Date.now();
      const [delivery] = await answering.waitFor(1, 5_000);
      expect(delivery!.receivedAt - completedAt).toBeLessThan(5_000);
      expect(JSON.parse(delivery!.body)).toMatchObject({ type: 'bulk_job.completed', data: { jobId } });
      // A few of the silent account's attempts at a time, never all of them.
      expect(silent.deliveries.length).toBeLessThanOrEqual(4);

      const metricsUrl = /mailverify: metrics on (\S+)/.exec(api.stderr())![1]!;
      let metrics = '';
      for (
        const deadline = Date.now() + 5_000;
        !/mailverify_webhook_attempts_total\{outcome="delivered"\} [1-9]/.test(metrics) && Date.now() < deadline;
        await sleep(100)
      ) {
        metrics = await (await fetch(new URL('/metrics', metricsUrl))).text();
      }
      expect(metrics).toMatch(/mailverify_webhook_attempts_total\{outcome="delivered"\} 1\b/);
      const due = Number(/^mailverify_webhook_deliveries_due (\d+)$/m.exec(metrics)![1]);
      expect(due).toBeGreaterThanOrEqual(40);
      expect(Number(/^mailverify_webhook_oldest_due_seconds (\S+)$/m.exec(metrics)![1])).toBeGreaterThan(0);
    },
  );
});

describe('mailverify webhooks', () => {
  it('adds an endpoint printing its secret once, lists it, sends it a test event, and removes it (exit 7 the second time)', { timeout: 60_000 }, async () => {
    const { api, token } = await service();
    const target = await receiver(() => 204);
    const cli = (...args: string[]) => runCli(args, { env: { MAILVERIFY_BASE_URL: api.baseUrl, MAILVERIFY_TOKEN: token } });

    const added = await cli('webhooks', 'add', target.url, '--description', 'from the CLI');
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^whsec_[A-Za-z0-9+/=]+\n$/);
    target.secret = added.stdout.trim();
    const listed = await cli('--json', 'webhooks', 'list');
    const [endpoint] = JSON.parse(listed.stdout) as Array<{ id: string; url: string; description: string }>;
    expect(endpoint).toMatchObject({ url: target.url, description: 'from the CLI' });
    expect(listed.stdout).not.toContain(target.secret);

    const tested = await cli('webhooks', 'test', endpoint!.id);
    expect(tested.code, tested.stderr).toBe(0);
    const [delivery] = await target.waitFor(1);
    expect(delivery).toMatchObject({ id: tested.stdout.trim(), signed: true });
    await sleep(500);
    expect((await cli('webhooks', 'list')).stdout).toContain(`${endpoint!.id}  ${target.url}  last `);

    expect((await cli('webhooks', 'remove', endpoint!.id)).code).toBe(0);
    expect((await cli('webhooks', 'remove', endpoint!.id)).code).toBe(7);
    expect((await cli('--json', 'webhooks', 'list')).stdout.trim()).toBe('[]');
  });
});

const postgres = STORE_KINDS.find((kind) => kind.name === 'PostgreSQL');

describe.skipIf(!postgres)('webhook deliveries across workers on PostgreSQL', () => {
  it(
    'deliver an event whose worker is SIGKILLed mid-delivery: another takes it over at once, same id, never two attempts at once',
    { timeout: 90_000 },
    async () => {
      const place = await postgres!.create();
      places.push(place);
      const { api, token } = await service({ dataDir: place.location.dataDir, databaseUrl: place.location.databaseUrl, engineArgs: ['--no-worker'] });
      const pool = await Promise.all([0, 1].map(() => startWorker(api, ['--log-level', 'info'], { ...FAST_RETRIES, ...PRIVATE_WEBHOOKS })));
      running.push(...pool);
      // The first delivery is held open (the receiver is slow): the worker making it is killed meanwhile.
      const target = await receiver((index) => (index === 0 ? 'hold' : 200));
      const endpointId = await register(api, token, target);
      const test = await call(api.baseUrl, 'POST', `/v1/webhooks/${endpointId}/test`, { token });
      await target.waitFor(1);

      const delivering = pool.filter((worker) => worker.stderr().includes('delivering a webhook event'));
      expect(delivering).toHaveLength(1);
      const victim = delivering[0]!;
      await victim.kill('SIGKILL');
      running.splice(running.indexOf(victim), 1);

      const deliveries = await target.waitFor(2, 15_000);
      await sleep(3_000);
      expect(deliveries).toHaveLength(2);
      expect(deliveries.map((delivery) => delivery.id)).toEqual([test.body.eventId, test.body.eventId]);
      expect(deliveries.every((delivery) => delivery.signed)).toBe(true);
      expect(target.mostAtOnce()).toBe(1);
      const survivor = pool.find((worker) => worker !== victim)!;
      expect(survivor.stderr()).toContain('delivering a webhook event');
      // Taken over by the rescue (the holder is gone), not after the delivery's lease of 60 s.
      expect(deliveries[1]!.receivedAt - deliveries[0]!.receivedAt).toBeLessThan(10_000);
      expect((await call(api.baseUrl, 'GET', '/v1/webhooks', { token })).body.webhooks[0].attempts).toEqual([
        expect.objectContaining({ status: 200, eventId: test.body.eventId }),
      ]);
    },
  );
});
