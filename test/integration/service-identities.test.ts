/**
 * What a login JWT and a dashboard session stand for (docs/api.md "Conventions"): the user as they
 * were when they signed in. A deleted user's JWT opens nobody's account, even one given the same id,
 * and a password change ends every sign-in. Both stores; the operator's changes come through a
 * connection of their own, as `mailverify admin` makes them beside a running service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/server/auth/passwords.js';
import type { Store } from '../../src/server/store/store.js';
import { cookieFrom, fetchPage, signIn } from '../support/dashboard-pages.js';
import { expectProblem, startMailWorld, startTestApp, type MailWorld, type TestApp } from '../support/service-app.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';

const PASSWORD = 'the first pass phrase';

describe.each(STORE_KINDS)('sign-ins on a $name store', (kind) => {
  let world: MailWorld;
  let place: StoreFixture;
  let app: TestApp;
  /** The operator's connection to the service's store. */
  let admin: Store;

  beforeAll(async () => {
    world = await startMailWorld({ mailboxes: [] });
    place = await kind.create();
    app = await startTestApp({ world, dataDir: place.location.dataDir, databaseUrl: place.location.databaseUrl });
    admin = await place.open();
  });
  afterAll(async () => {
    await app?.close();
    await place?.close();
    await world?.close();
  });

  async function loginJwt(email: string, password = PASSWORD): Promise<string> {
    const login = await app.call('POST', '/v1/auth/login', { json: { email, password } });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    return login.body.token as string;
  }
  const accountOf = (token: string) => app.call('GET', '/v1/account', { token });

  it("refuses a deleted user's JWT, also once another user has its id", async () => {
    await app.createUser('older@example.test', { credits: 0, password: PASSWORD });
    const { user: newest } = await app.createUser('newest@example.test', { credits: 0, password: PASSWORD });
    const jwt = await loginJwt('newest@example.test');
    expect((await accountOf(jwt)).body.email).toBe('newest@example.test');

    await admin.accounts.deleteUser(newest.id);
    const { user: next } = await app.createUser('next@example.test', { credits: 0, password: PASSWORD });
    expect(next.id).not.toBe(newest.id);
    expectProblem(await accountOf(jwt), 401, 'unauthorized');

    // Even an id that came back (a store that gave ids twice, as SQLite did) does not make the JWT anyone's.
    await admin.accounts.deleteUser(next.id);
    await place.query(
      `INSERT INTO users (id, email, balance, rate_limit, rate_window_seconds, created_at) VALUES (${newest.id}, 'same-id@example.test', 5, 20, 1, 'now') RETURNING id`,
    );
    expect((await app.store.accounts.findUserById(newest.id))?.email).toBe('same-id@example.test');
    expectProblem(await accountOf(jwt), 401, 'unauthorized');
    expectProblem(await app.call('POST', '/v1/tokens', { token: jwt, json: { name: 'kept for ever' } }), 401, 'unauthorized');
  });

  it('ends JWTs and dashboard sessions at a password change, keeping API tokens; the new password signs in', async () => {
    const { user, token } = await app.createUser('changes@example.test', { credits: 0, password: PASSWORD });
    const jwt = await loginJwt('changes@example.test');
    const signedIn = await signIn(app.baseUrl, 'changes@example.test', PASSWORD);
    const session = cookieFrom(signedIn.page, 'mv_session');
    expect((await fetchPage(app.baseUrl, '/tokens', { cookie: session })).status).toBe(200);

    await admin.accounts.setPassword(user.id, await hashPassword('the second pass phrase'));
    expectProblem(await accountOf(jwt), 401, 'unauthorized');
    const page = await fetchPage(app.baseUrl, '/tokens', { cookie: session });
    expect([page.status, page.headers.location]).toEqual([303, '/sign-in?next=%2Ftokens']);
    expect((await accountOf(token)).status).toBe(200);

    expectProblem(await app.call('POST', '/v1/auth/login', { json: { email: 'changes@example.test', password: PASSWORD } }), 401, 'unauthorized');
    expect((await accountOf(await loginJwt('changes@example.test', 'the second pass phrase'))).body.email).toBe('changes@example.test');
  });
});
