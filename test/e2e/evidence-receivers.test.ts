/**
 * SendGrid's signed event webhook end to end (docs/evidence.md "Live from an ESP"): the built CLI
 * creates a receiver with a key made here, against the built `serve` on each store; a correctly
 * signed batch shows in GET /v1/evidence, a forged one is refused and leaves nothing.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliSandbox, type CliSandbox } from '../support/cli-sandbox.js';
import { call, expectProblem } from '../support/service-app.js';
import { startService, type RunningService } from '../support/service.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';
import { testTempDir } from '../support/temp-dirs.js';

function signed(key: KeyObject, body: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  return {
    'content-type': 'application/json',
    'x-twilio-email-event-webhook-timestamp': timestamp,
    'x-twilio-email-event-webhook-signature': sign('sha256', Buffer.from(timestamp + body), { key, dsaEncoding: 'der' }).toString('base64'),
  };
}

const BATCH = JSON.stringify([
  { email: 'gone@example.com', event: 'bounce', timestamp: 1_795_000_000, status: '5.1.1', reason: '550 5.1.1 user unknown' },
  { email: 'kept@example.com', event: 'delivered', timestamp: 1_795_000_100, response: '250 OK' },
]);

describe.each(STORE_KINDS)('a SendGrid receiver on the $name store', (kind) => {
  let place: StoreFixture;
  let service: RunningService;
  let token: string;
  let cli: CliSandbox;
  const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });

  beforeAll(async () => {
    place = await kind.create();
    service = await startService({ databaseUrl: place.location.databaseUrl });
    token = await service.createUser('esp@example.test', { credits: 0 });
    cli = await createCliSandbox({ MAILVERIFY_BASE_URL: service.baseUrl, MAILVERIFY_TOKEN: token });
  });
  afterAll(async () => {
    await cli?.close();
    await service?.stop();
    await place?.close();
  });

  const evidence = async () => (await call(service.baseUrl, 'GET', '/v1/evidence', { token })).body;

  it('takes a signed batch, refuses a forged one, and stops at delete', async () => {
    const keyFile = join(testTempDir('sendgrid-key'), 'key.pem');
    writeFileSync(keyFile, key.publicKey.export({ format: 'pem', type: 'spki' }));
    const created = await cli.run(['evidence', 'receivers', 'create', 'sendgrid', '--public-key-file', keyFile]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/evidence\/hooks\/sendgrid\/mvr_[0-9a-f]{64}\n$/);
    const url = created.stdout.trim();
    const path = new URL(url).pathname;

    const forger = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    expectProblem(await call(service.baseUrl, 'POST', path, { rawBody: BATCH, headers: signed(forger, BATCH) }), 403, 'bad_signature');
    expectProblem(await call(service.baseUrl, 'POST', path, { rawBody: BATCH, headers: { 'content-type': 'application/json' } }), 401, 'unauthorized');
    expect(JSON.stringify(await evidence())).not.toContain('example.com');

    const taken = await call(service.baseUrl, 'POST', path, { rawBody: BATCH, headers: signed(key.privateKey, BATCH) });
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    expect(taken.body).toEqual({ received: 2, added: 2, skipped: 0 });
    const kept = JSON.stringify(await evidence());
    expect(kept).toContain('gone@example.com');
    expect(kept).toContain('kept@example.com');

    const listed = await cli.run(['evidence', 'receivers', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const [receiver] = JSON.parse(listed.stdout) as Array<{ id: string; kind: string; lastEventAt: string | null }>;
    expect(receiver).toMatchObject({ kind: 'sendgrid', lastEventAt: expect.any(String) });
    expect(listed.stdout).not.toContain(path.split('/').at(-1));
    // The URL's secret never reaches the service's log.
    expect(service.stderr()).not.toContain(path.split('/').at(-1));

    const deleted = await cli.run(['evidence', 'receivers', 'delete', receiver!.id]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expectProblem(await call(service.baseUrl, 'POST', path, { rawBody: BATCH, headers: signed(key.privateKey, BATCH) }), 404, 'not_found');
  });
});
