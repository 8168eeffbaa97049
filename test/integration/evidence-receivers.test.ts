/**
 * Evidence receivers (docs/evidence.md "Live from an ESP") on the real app over HTTP, both stores:
 * SendGrid's signed event webhook with a key made here, and SES through SNS with a certificate made
 * here, SNS's host played by a loopback server reached through the app's injected fetcher.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiToken, hashApiToken } from '../../src/server/auth/api-tokens.js';
import { expectProblem, startMailWorld, startTestApp, type MailWorld, type TestApp } from '../support/service-app.js';
import { makeSnsSigner, signSns, startLoopbackSns, TOPIC_ARN, type LoopbackSns } from '../support/sns.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';

const SG_SIGNATURE = 'x-twilio-email-event-webhook-signature';
const SG_TIMESTAMP = 'x-twilio-email-event-webhook-timestamp';

function sendgridKey(): { privateKey: KeyObject; publicKey: string } {
  const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { privateKey: pair.privateKey, publicKey: pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64') };
}

/** SendGrid's signature headers over `body`, made with `key` at `timestamp` (seconds). */
function signedHeaders(key: KeyObject, body: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  const signature = sign('sha256', Buffer.from(`${timestamp}${body}`), { key, dsaEncoding: 'der' }).toString('base64');
  return { 'content-type': 'application/json', [SG_SIGNATURE]: signature, [SG_TIMESTAMP]: String(timestamp) };
}

const at = Math.floor(Date.parse('2026-11-20T10:00:00Z') / 1000);
const BATCH = JSON.stringify([
  {
    email: 'gone@example.com',
    event: 'bounce',
    timestamp: at,
    status: '5.1.1',
    reason: '550 5.1.1 <gone@example.com>: Recipient address rejected: User unknown',
  },
  { email: 'dropped@example.com', event: 'dropped', timestamp: at, reason: 'Bounced Address' },
  { email: 'kept@example.com', event: 'delivered', timestamp: at, response: '250 2.0.0 OK' },
  { email: 'slow@example.com', event: 'deferred', timestamp: at, response: '451 4.7.1 try again later' },
  { email: 'angry@example.com', event: 'spamreport', timestamp: at },
  { email: 'kept@example.com', event: 'open', timestamp: at },
]);

const SES_BOUNCE = JSON.stringify({
  notificationType: 'Bounce',
  bounce: {
    bounceType: 'Permanent',
    timestamp: '2026-11-20T11:00:00.000Z',
    bouncedRecipients: [{ emailAddress: 'ses-gone@example.net', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }],
  },
  mail: { messageId: 'm1' },
});

describe.each(STORE_KINDS)('evidence receivers on the $name store', (kind) => {
  let world: MailWorld;
  let place: StoreFixture;
  let sns: LoopbackSns;
  let app: TestApp;
  let token: string;
  let userId: number;
  const signer = makeSnsSigner();

  const evidence = async () => (await app.store.evidence.listEvidence(userId, { limit: 100 })).events.map((event) => `${event.kind} ${event.email}`).sort();
  const create = (json: unknown, as = token) => app.call('POST', '/v1/evidence/receivers', { token: as, json });
  const path = (url: string) => new URL(url).pathname;

  beforeAll(async () => {
    world = await startMailWorld({ mailboxes: [] });
    place = await kind.create();
    sns = await startLoopbackSns(signer);
    app = await startTestApp({ world, dataDir: place.location.dataDir, databaseUrl: place.location.databaseUrl, sns: sns.fetcher });
    ({
      token,
      user: { id: userId },
    } = await app.createUser('sender@example.test', { credits: 0 }));
  });
  afterAll(async () => {
    await app?.close();
    await sns?.close();
    await place?.close();
    await world?.close();
  });

  it('creates a SendGrid receiver with a checked key, shows its URL once, and lists it without', async () => {
    expectProblem(await create({ kind: 'sendgrid' }), 400, 'invalid_request');
    expectProblem(await create({ kind: 'sendgrid', publicKey: 'bm90IGEga2V5' }), 400, 'invalid_request');
    expectProblem(await create({ kind: 'sns', publicKey: sendgridKey().publicKey }), 400, 'invalid_request');
    expectProblem(await create({ kind: 'sns', topicArn: 'not-an-arn' }), 400, 'invalid_request');
    const key = sendgridKey();
    const created = await create({ kind: 'sendgrid', publicKey: key.publicKey });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), kind: 'sendgrid', url: expect.any(String), topicArn: null, createdAt: expect.any(String) });
    expect(path(created.body.url)).toMatch(/^\/v1\/evidence\/hooks\/sendgrid\/mvr_[0-9a-f]{64}$/);
    const listed = await app.call('GET', '/v1/evidence/receivers', { token });
    expect(listed.body.receivers).toEqual([
      {
        id: created.body.id,
        kind: 'sendgrid',
        topicArn: null,
        createdAt: created.body.createdAt,
        publicKey: key.publicKey,
        confirmedAt: null,
        lastEventAt: null,
      },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(path(created.body.url).split('/').at(-1));
    expect((await app.call('DELETE', `/v1/evidence/receivers/${created.body.id}`, { token })).status).toBe(204);
    expectProblem(await app.call('DELETE', `/v1/evidence/receivers/${created.body.id}`, { token }), 404, 'not_found');
    expectProblem(await app.call('POST', path(created.body.url), { rawBody: BATCH, headers: signedHeaders(key.privateKey, BATCH) }), 404, 'not_found');
  });

  it('keeps a correctly signed SendGrid batch and refuses unsigned, forged and stale ones without keeping anything', async () => {
    const key = sendgridKey();
    const url = path((await create({ kind: 'sendgrid', publicKey: key.publicKey })).body.url);
    const before = await evidence();

    expectProblem(await app.call('POST', url, { rawBody: BATCH, headers: { 'content-type': 'application/json' } }), 401, 'unauthorized');
    const forged = await app.call('POST', url, { rawBody: BATCH, headers: signedHeaders(sendgridKey().privateKey, BATCH) });
    expectProblem(forged, 403, 'bad_signature');
    const altered = BATCH.replace('"bounce"', '"delivered"');
    expectProblem(await app.call('POST', url, { rawBody: altered, headers: signedHeaders(key.privateKey, BATCH) }), 403, 'bad_signature');
    const stale = Math.floor(Date.now() / 1000) - 11 * 60;
    expectProblem(await app.call('POST', url, { rawBody: BATCH, headers: signedHeaders(key.privateKey, BATCH, stale) }), 403, 'bad_signature');
    expectProblem(
      await app.call('POST', url.replace(/mvr_\w+$/, `mvr_${'0'.repeat(64)}`), { rawBody: BATCH, headers: signedHeaders(key.privateKey, BATCH) }),
      404,
      'not_found',
    );
    expect(await evidence()).toEqual(before);

    const taken = await app.call('POST', url, { rawBody: BATCH, headers: signedHeaders(key.privateKey, BATCH) });
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    expect(taken.body).toEqual({ received: 5, added: 5, skipped: 1 });
    expect(await evidence()).toEqual(
      [
        ...before,
        'bounce gone@example.com',
        'bounce dropped@example.com',
        'delivery kept@example.com',
        'deferral slow@example.com',
        'complaint angry@example.com',
      ].sort(),
    );
    // SendGrid posts a batch again when our answer was lost: nothing is kept twice.
    expect((await app.call('POST', url, { rawBody: BATCH, headers: signedHeaders(key.privateKey, BATCH) })).body).toEqual({
      received: 5,
      added: 0,
      skipped: 1,
    });
    expect((await app.call('GET', '/v1/evidence/receivers', { token })).body.receivers.at(-1).lastEventAt).toEqual(expect.any(String));
  });

  it('confirms an SNS subscription through SNS, keeps signed SES notifications and refuses bad signatures', async () => {
    const created = await create({ kind: 'sns', topicArn: TOPIC_ARN });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const url = path(created.body.url);
    expect(url).toMatch(/^\/v1\/evidence\/hooks\/sns\/mvr_/);
    const post = (message: unknown) => app.call('POST', url, { rawBody: JSON.stringify(message), headers: { 'content-type': 'text/plain; charset=UTF-8' } });
    const gets = sns.gets().length;

    const subscribeUrl = 'https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=t&Token=tok';
    const confirmation = signSns(signer, {
      Type: 'SubscriptionConfirmation',
      Message: 'You have chosen to subscribe',
      SubscribeURL: subscribeUrl,
      Token: 'tok',
    });
    const confirmed = await post(confirmation);
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    expect(confirmed.body).toEqual({ type: 'SubscriptionConfirmation', confirmed: true });
    expect(sns.gets().slice(gets)).toEqual(['/SimpleNotificationService-test.pem', '/?Action=ConfirmSubscription&TopicArn=t&Token=tok']);
    expect((await app.call('GET', '/v1/evidence/receivers', { token })).body.receivers.at(-1).confirmedAt).toEqual(expect.any(String));

    const before = await evidence();
    const notification = signSns(signer, { Type: 'Notification', Message: SES_BOUNCE });
    expectProblem(await post({ ...notification, Message: SES_BOUNCE.replace('Permanent', 'Transient') }), 403, 'bad_signature');
    expectProblem(await post(signSns(makeSnsSigner(), { Type: 'Notification', Message: SES_BOUNCE })), 403, 'bad_signature');
    expectProblem(
      await post(signSns(signer, { Type: 'Notification', Message: SES_BOUNCE, SigningCertURL: 'https://evil.example/cert.pem' })),
      403,
      'bad_signature',
    );
    expectProblem(await post(signSns(signer, { Type: 'Notification', Message: SES_BOUNCE, TopicArn: `${TOPIC_ARN}-other` })), 403, 'forbidden');
    const offHost = signSns(signer, { Type: 'SubscriptionConfirmation', Message: 'm', SubscribeURL: 'https://evil.example/confirm', Token: 'tok' });
    expectProblem(await post(offHost), 403, 'bad_signature');
    expectProblem(await post({ Type: 'Notification' }), 400, 'invalid_request');
    expect(await evidence()).toEqual(before);
    // The certificate was fetched once (then cached), and nothing off SNS's hosts was asked for.
    expect(sns.gets().slice(gets + 2)).toEqual([]);

    const kept = await post(notification);
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body).toEqual({ type: 'Notification', received: 1, added: 1, skipped: 0 });
    expect(await evidence()).toEqual([...before, 'bounce ses-gone@example.net'].sort());
    expect((await post(signSns(signer, { Type: 'UnsubscribeConfirmation', Message: 'bye', SubscribeURL: subscribeUrl, Token: 'tok' }))).body).toEqual({
      type: 'UnsubscribeConfirmation',
    });
  });

  it('manages receivers only with a token that has the evidence scope', async () => {
    const narrow = generateApiToken();
    await app.store.tokens.createApiToken(userId, 'verify only', hashApiToken(narrow), { scopes: ['verify', 'account'], expiresAt: null });
    const refused = await app.call('GET', '/v1/evidence/receivers', { token: narrow });
    expectProblem(refused, 403, 'insufficient_scope');
    expect(refused.body.scope).toBe('evidence');
    expectProblem(await create({ kind: 'sns' }, narrow), 403, 'insufficient_scope');
  });

  it('bounds a post like any write: 8 MiB of body, 10,000 events', async () => {
    const key = sendgridKey();
    const url = path((await create({ kind: 'sendgrid', publicKey: key.publicKey })).body.url);
    const huge = Buffer.alloc(8 * 1024 * 1024 + 1, 0x20);
    expectProblem(await app.call('POST', url, { rawBody: huge, headers: { 'content-type': 'application/json' } }), 413, 'payload_too_large');
    const many = JSON.stringify(Array.from({ length: 10_001 }, (_, index) => ({ email: `a${index}@example.org`, event: 'delivered', timestamp: at })));
    expectProblem(await app.call('POST', url, { rawBody: many, headers: signedHeaders(key.privateKey, many) }), 413, 'payload_too_large');
    expect(await evidence()).not.toContain('delivery a0@example.org');
  });

  it("counts posts against the owner's rate limit", async () => {
    const { token: limited } = await app.createUser(`limited-${kind.name}@example.test`, { credits: 0, rateLimit: 2, windowSeconds: 60 });
    const key = sendgridKey();
    const created = await create({ kind: 'sendgrid', publicKey: key.publicKey }, limited);
    expect(created.status).toBe(201);
    const post = () => app.call('POST', path(created.body.url), { rawBody: '[]', headers: signedHeaders(key.privateKey, '[]') });
    expect((await post()).status).toBe(200);
    const refused = await post();
    expectProblem(refused, 429, 'rate_limited');
    expect(refused.headers['retry-after']).toBeDefined();
  });
});
