/**
 * What an account learns from the shared result cache about other accounts, on `mailverify serve`
 * (the built CLI, `npm run build` first) against a real DNS server and SMTP fixture: once an account
 * has its own fresh verdict, its answers stay its own whatever other accounts verify meanwhile.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, MAIL_DOMAIN, startMailWorld, type MailWorld } from '../support/service-app.js';
import { startService, type RunningService } from '../support/service.js';

const ANN = `ann@${MAIL_DOMAIN}`;

let world: MailWorld;
const running: RunningService[] = [];

beforeAll(async () => {
  world = await startMailWorld({ mailboxes: [ANN] });
});

afterEach(async () => {
  for (const service of running.splice(0)) await service.stop();
});

afterAll(() => world?.close());

async function serve(): Promise<RunningService> {
  const service = await startService({ engineArgs: world.engineArgs });
  running.push(service);
  return service;
}

describe('a reused verdict', () => {
  it("is the asker's own while it is fresh: another account verifying the address afterwards changes nothing", { timeout: 60_000 }, async () => {
    const service = await serve();
    const first = await service.createUser('first@example.test', { credits: 10, rateLimit: 1_000 });
    const other = await service.createUser('other@example.test', { credits: 10, rateLimit: 1_000 });
    const verify = async (token: string, json: object) => (await call(service.baseUrl, 'POST', '/v1/verify', { token, json })).body;

    expect(await verify(first, { email: ANN })).toMatchObject({ result: 'valid' });
    const own = await verify(first, { email: ANN });
    expect(own.verifiedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(own.verifiedAt).not.toMatch(/T00:00:00\.000Z$/);

    // The other account asks afresh: its verdict is the newest in the cache.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await verify(other, { email: ANN, fresh: true })).verifiedAt).toBeUndefined();
    // The first account's answer does not move: nothing tells it that someone asked just now.
    for (let poll = 0; poll < 3; poll++) expect(await verify(first, { email: ANN })).toEqual(own);
  });
});
