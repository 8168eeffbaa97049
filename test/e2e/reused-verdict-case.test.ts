/**
 * Which spellings of an address share a reused verdict, on `mailverify serve` (the built CLI, `npm run
 * build` first) against a real DNS server and an SMTP fixture that tells `Kate@` from `kate@`: the
 * result cache keeps the local part as asked, unless a provider rule says the provider folds case.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, MAIL_DOMAIN, startMailWorld, type MailWorld, type Reply } from '../support/service-app.js';
import { startService, type RunningService } from '../support/service.js';
import { testTempDir } from '../support/temp-dirs.js';

const KATE = `Kate@${MAIL_DOMAIN}`;
const LOWER_KATE = `kate@${MAIL_DOMAIN}`;

let world: MailWorld;
const running: RunningService[] = [];

beforeAll(async () => {
  world = await startMailWorld({ mailboxes: [KATE], caseSensitive: true });
});

afterEach(async () => {
  for (const service of running.splice(0)) await service.stop();
  world.smtp.reset();
});

afterAll(() => world?.close());

async function serve(extraArgs: string[] = []): Promise<RunningService> {
  const service = await startService({ engineArgs: [...world.engineArgs, ...extraArgs] });
  running.push(service);
  return service;
}

/** A rules file saying the fixture's MX host folds case, as Gmail's does. */
function foldingRules(): string {
  const file = join(testTempDir('case-rules'), 'provider-rules.json');
  writeFileSync(file, JSON.stringify({ [`mx.${MAIL_DOMAIN}`]: { foldsCase: true, source: 'test: the fixture reads any case as one mailbox' } }));
  return file;
}

/** RCPT TO commands the fixture got for exactly this spelling. */
const rcptsFor = (address: string) => world.smtp.commands.filter((line) => line.includes(`<${address}>`)).length;

const verifying =
  (service: RunningService) =>
  async (token: string, email: string): Promise<Reply['body']> =>
    (await call(service.baseUrl, 'POST', '/v1/verify', { token, json: { email } })).body;

describe('a verdict reused for another spelling of the local part', () => {
  it('is not: at a server that tells case apart, another account asking `kate@` is asked afresh', { timeout: 60_000 }, async () => {
    const service = await serve();
    const verify = verifying(service);
    const first = await service.createUser('first@example.test', { credits: 10, rateLimit: 1_000 });
    const other = await service.createUser('other@example.test', { credits: 10, rateLimit: 1_000 });

    expect(await verify(first, KATE)).toMatchObject({ email: KATE, result: 'valid' });
    const lower = await verify(other, LOWER_KATE);
    expect(lower).toMatchObject({ email: LOWER_KATE, result: 'invalid', reasonCode: 'mailbox_not_found' });
    expect(lower.verifiedAt).toBeUndefined();
    expect(rcptsFor(LOWER_KATE)).toBe(1);
    // And the other way round: the first account's `Kate@` is not answered the other's `kate@` verdict.
    expect(await verify(other, KATE)).toMatchObject({ email: KATE, result: 'valid' });
  });

  it('is, where a provider rule says the provider folds case', { timeout: 60_000 }, async () => {
    const service = await serve(['--provider-rules', foldingRules()]);
    const verify = verifying(service);
    const first = await service.createUser('first@example.test', { credits: 10, rateLimit: 1_000 });
    const other = await service.createUser('other@example.test', { credits: 10, rateLimit: 1_000 });

    const fresh = await verify(first, KATE);
    expect(fresh).toMatchObject({ email: KATE, result: 'valid' });
    // What the engine tells the cache is not the interface's.
    expect(fresh).not.toHaveProperty('foldsCase');
    const lower = await verify(other, LOWER_KATE);
    expect(lower).toMatchObject({ email: LOWER_KATE, result: 'valid' });
    expect(lower.verifiedAt).toMatch(/T00:00:00\.000Z$/);
    expect(lower).not.toHaveProperty('foldsCase');
    expect(rcptsFor(LOWER_KATE)).toBe(0);
  });
});
