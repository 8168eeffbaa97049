import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashCode, normaliseUserCode } from '../../src/server/auth/device-codes.js';
import { WRONG_USER_CODES_PER_ACCOUNT } from '../../src/server/auth/login-limit.js';
import { cookieFrom, csrfOf, fetchPage as fetchPageAt, signIn as signInAt, type Page, type PageRequest } from '../support/dashboard-pages.js';
import { MAIL_DOMAIN, startMailWorld, startTestApp, type MailWorld, type TestApp } from '../support/service-app.js';

/**
 * The dashboard's HTTP surface without a browser: what a hostile or broken client can send it
 * (forged, malformed, oversized, someone else's ids) and the headers every page carries. The
 * browser's view is test/e2e/dashboard.test.ts.
 */

const PASSWORD = 'pass phrase of dana';
/** A domain whose DNS answers only after a while: its job stays `processing` long enough to look at. */
const SLOW_DOMAIN = 'slow.test';
const SLOW_DNS_MS = 3_000;

let world: MailWorld;
let app: TestApp;

const fetchPage = (path: string, options?: PageRequest): Promise<Page> => fetchPageAt(app.baseUrl, path, options);
const signIn = (email: string, password: string) => signInAt(app.baseUrl, email, password);

/** Posts a list file with the upload form's fields, as a browser does. */
async function upload(cookie: string, fileName: string, content: string): Promise<Page> {
  const csrf = csrfOf(await fetchPage('/lists', { cookie }));
  const boundary = 'mailverify-test';
  const body = [
    `--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n`,
    `--${boundary}\r\nContent-Disposition: form-data; name="list"; filename="${fileName}"\r\nContent-Type: text/plain\r\n\r\n${content}\r\n`,
    `--${boundary}--\r\n`,
  ].join('');
  return fetchPage('/lists', { method: 'POST', cookie, body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
}

async function signedInAs(email: string): Promise<string> {
  const { page } = await signIn(email, PASSWORD);
  expect(page.status).toBe(303);
  return cookieFrom(page, 'mv_session');
}

beforeAll(async () => {
  world = await startMailWorld({ mailboxes: [`ann@${MAIL_DOMAIN}`] });
  app = await startTestApp({ world });
  await app.createUser('dana@example.test', { credits: 10, password: PASSWORD });
  await app.createUser('erin@example.test', { credits: 10, password: PASSWORD });
  await app.createUser('fay@example.test', { credits: 10, password: PASSWORD, rateLimit: 1, windowSeconds: 3600 });
});

afterAll(async () => {
  await app?.close();
  await world?.close();
});

describe('dashboard pages over HTTP', () => {
  it('sends every page with a CSP without inline script, refusing framing, and is not in the OpenAPI document', async () => {
    const page = await fetchPage('/sign-in');
    expect(page.status).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.text).not.toMatch(/<script>|<style>| style=/);
    const openapi = await fetchPage('/v1/openapi.json');
    expect(Object.keys(JSON.parse(openapi.text).paths)).not.toContain('/sign-in');
  });

  it('sends /login to /sign-in, and every page names a favicon that is served', async () => {
    const login = await fetchPage('/login');
    expect([login.status, login.headers.location]).toEqual([301, '/sign-in']);
    const page = await fetchPage('/sign-in');
    expect(page.text).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
    const icon = await fetchPage('/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    expect(icon.text).toMatch(/^<svg /);
  });

  it('sends a visitor without a session to sign in, and back to the page asked for after', async () => {
    const overview = await fetchPage('/', { cookie: 'mv_session=made-up' });
    expect([overview.status, overview.headers.location]).toEqual([303, '/sign-in']);
    for (const path of ['/tokens', '/lists', '/jobs/x', '/verify', '/device?code=BCDF-GHJK']) {
      const page = await fetchPage(path, { cookie: 'mv_session=made-up' });
      expect([page.status, page.headers.location], path).toEqual([303, `/sign-in?next=${encodeURIComponent(path)}`]);
    }
    // The way back leads only to a page of this dashboard, never to another site.
    for (const next of ['//evil.example/', '/\\evil.example', 'https://evil.example/']) {
      const page = await fetchPage(`/sign-in?next=${encodeURIComponent(next)}`);
      expect(page.text, next).not.toContain('name="next"');
    }
    expect((await fetchPage(`/sign-in?next=${encodeURIComponent('/device?code=X')}`)).text).toContain('name="next" value="/device?code=X"');
  });

  it('leads back after signing in to the page asked for, and only to a page here', async () => {
    const cases: [next: string, to: string][] = [
      ['/device?code=BCDF-GHJK', '/device?code=BCDF-GHJK'],
      ['//evil.example/', '/'],
    ];
    for (const [next, to] of cases) {
      const form = await fetchPage('/sign-in');
      const cookie = cookieFrom(form, 'mv_sign_in');
      const page = await fetchPage('/sign-in', { method: 'POST', cookie, form: { _csrf: csrfOf(form), email: 'dana@example.test', password: PASSWORD, next } });
      expect([page.status, page.headers.location], next).toEqual([303, to]);
    }
  });

  it('answers an unknown address exactly as a wrong password, and sets an HttpOnly SameSite=Lax session cookie on success', async () => {
    const unknown = await signIn('nobody@example.test', PASSWORD);
    const wrong = await signIn('dana@example.test', 'not it');
    expect(unknown.page.status).toBe(401);
    expect(wrong.page.status).toBe(401);
    const message = (page: Page) => /role="alert">([^<]*)</.exec(page.text)?.[1];
    expect(message(unknown.page)).toBe(message(wrong.page));
    const { page } = await signIn('dana@example.test', PASSWORD);
    const setCookie = [page.headers['set-cookie']].flat().find((line) => line?.startsWith('mv_session='));
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
  });

  it('refuses a sign-in form without the token from our own page', async () => {
    const page = await fetchPage('/sign-in', { method: 'POST', form: { email: 'dana@example.test', password: PASSWORD } });
    expect(page.status).toBe(403);
    expect(page.headers['set-cookie']).toBeUndefined();
  });

  it('answers malformed forms and bad ids with a 4xx page, never a 500', async () => {
    const cookie = await signedInAs('dana@example.test');
    const csrf = csrfOf(await fetchPage('/tokens', { cookie }));
    const cases: Array<[string, Page]> = [
      ['token without a name', await fetchPage('/tokens', { method: 'POST', cookie, form: { _csrf: csrf } })],
      ['list form without a file', await fetchPage('/lists', { method: 'POST', cookie, form: { _csrf: csrf } })],
      [
        'broken multipart',
        await fetchPage('/lists', {
          method: 'POST',
          cookie,
          body: `--x\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n--x`,
          headers: { 'content-type': 'multipart/form-data; boundary=x' },
        }),
      ],
      ['a job that does not exist', await fetchPage('/jobs/00000000-0000-0000-0000-000000000000', { cookie })],
      ['a download filtered by no verdict', await fetchPage('/jobs/x/download?only=everything', { cookie })],
      ['an upload that does not exist', await fetchPage('/lists/uploads/nope', { cookie })],
      ['revoking a token that does not exist', await fetchPage('/tokens/nope/revoke', { method: 'POST', cookie, form: { _csrf: csrf } })],
    ];
    for (const [what, page] of cases) {
      expect(page.status, `${what}: ${page.text}`).toBeGreaterThanOrEqual(400);
      expect(page.status, what).toBeLessThan(500);
      expect(page.headers['content-type'], what).toMatch(/^text\/html/);
    }
  });

  it('keeps a list whose email column is not found, and lets the user choose it', async () => {
    const cookie = await signedInAs('dana@example.test');
    const uploaded = await upload(cookie, 'contacts.csv', `who;reach at\nAnn;ann at ${MAIL_DOMAIN}\n`);
    expect(uploaded.status, uploaded.text).toBe(303);
    const preview = await fetchPage(String(uploaded.headers.location), { cookie });
    expect(preview.status).toBe(200);
    expect(preview.text).toContain('no email column found');
    expect(preview.text).not.toContain('--column');
    expect(preview.text).toContain('<option value="2">2: reach at</option>');
    expect(preview.text).not.toContain('Verify list');
    const second = await fetchPage(`${uploaded.headers.location}?column=2`, { cookie });
    expect(second.text).toContain('no addresses in column');
    expect(second.text).not.toContain('--column');
    expect(second.text).not.toContain('Verify list');
  });

  it("counts form posts against the user's rate limit, as API calls are", async () => {
    const cookie = await signedInAs('fay@example.test');
    const csrf = csrfOf(await fetchPage('/verify', { cookie }));
    const first = await fetchPage('/verify', { method: 'POST', cookie, form: { _csrf: csrf, email: `ann@${MAIL_DOMAIN}` } });
    expect(first.status, first.text).toBe(200);
    const second = await fetchPage('/verify', { method: 'POST', cookie, form: { _csrf: csrf, email: `ann@${MAIL_DOMAIN}` } });
    expect(second.status).toBe(429);
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(0);
    expect((await app.store.accounts.findUserByEmail('fay@example.test'))?.balance).toBe(9);
  });

  it('reloads a running job page by itself (no script needed), and shows results once the job completes', async () => {
    world.dns.set(SLOW_DOMAIN, { delayMs: SLOW_DNS_MS, records: [] });
    const cookie = await signedInAs('erin@example.test');
    const csrf = csrfOf(await fetchPage('/lists', { cookie }));
    const uploaded = await upload(cookie, 'slow.txt', `someone@${SLOW_DOMAIN}\n`);
    const submitted = await fetchPage(`${uploaded.headers.location}/submit`, { method: 'POST', cookie, form: { _csrf: csrf, column: '1' } });
    const jobPath = String(submitted.headers.location);
    const running = await fetchPage(jobPath, { cookie });
    expect(running.text).toContain('<strong id="job-status">processing</strong>');
    expect(running.text).toMatch(/<meta http-equiv="refresh" content="\d+">/);
    expect(running.text).not.toContain('Download CSV');
    let page = running;
    for (const deadline = Date.now() + 30_000; page.text.includes('http-equiv="refresh"') && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      page = await fetchPage(jobPath, { cookie });
    }
    expect(page.text).toContain('<strong id="job-status">completed</strong>');
    expect(page.text).toContain(`someone@${SLOW_DOMAIN}`);
    expect(page.text).toMatch(new RegExp(`<tr><td>someone@${SLOW_DOMAIN}</td><td>[a-z_]+</td><td><code>[a-z0-9_]+</code></td>`));
    expect(page.text).toContain('Download CSV');
  });

  it('shows the reason code of a verification, and a check that could not be established as a blank cell, not false', async () => {
    world.dns.set('servfail.dashboard.test', { rcode: 'SERVFAIL' });
    await app.createUser('gil@example.test', { credits: 10, password: PASSWORD });
    const cookie = await signedInAs('gil@example.test');
    const csrf = csrfOf(await fetchPage('/verify', { cookie }));
    const page = await fetchPage('/verify', { method: 'POST', cookie, form: { _csrf: csrf, email: 'ann@servfail.dashboard.test' } });
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain('<code class="reason-code">dns_failure</code>');
    expect(page.text).toContain('<tr><th scope="row">domainExists</th><td class="unestablished" title="could not be established"></td></tr>');
    expect(page.text).toContain('<tr><th scope="row">format</th><td>true</td></tr>');
    expect(page.text).not.toContain('<th scope="row">hasMx</th><td>false</td>');
  });

  it("adds a webhook endpoint showing its secret once, sends it a test event, refuses a private one, and removes it (never another user's)", async () => {
    const cookie = await signedInAs('dana@example.test');
    const form = await fetchPage('/webhooks', { cookie });
    expect(form.text).toContain('Add endpoint');
    const csrf = csrfOf(form);
    // A public address as an IP: accepted without a DNS lookup (nothing is delivered: the test app has no deliverer).
    const added = await fetchPage('/webhooks', { method: 'POST', cookie, form: { _csrf: csrf, url: 'https://93.184.215.14/hooks', description: 'crm' } });
    expect([added.status, added.headers.location]).toEqual([303, '/webhooks']);
    const withSecret = await fetchPage('/webhooks', { cookie: `${cookie}; ${cookieFrom(added, 'mv_new_webhook')}` });
    expect(withSecret.text).toMatch(/value="whsec_[A-Za-z0-9+/=]+"/);
    expect(withSecret.text).toContain('https://93.184.215.14/hooks');
    const later = await fetchPage('/webhooks', { cookie });
    expect(later.text).not.toContain('whsec_');
    const endpointId = /action="\/webhooks\/([^/"]+)\/test"/.exec(later.text)![1]!;

    const tested = await fetchPage(`/webhooks/${endpointId}/test`, { method: 'POST', cookie, form: { _csrf: csrf } });
    expect(tested.headers.location).toMatch(/^\/webhooks\?sent=msg_/);
    expect((await fetchPage(tested.headers.location as string, { cookie })).text).toMatch(/Test event msg_\S+ queued/);

    const refused = await fetchPage('/webhooks', { method: 'POST', cookie, form: { _csrf: csrf, url: 'http://169.254.169.254/latest' } });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Webhooks are not sent to 169.254.169.254');

    const erin = await signedInAs('erin@example.test');
    const erinCsrf = csrfOf(await fetchPage('/webhooks', { cookie: erin }));
    expect((await fetchPage(`/webhooks/${endpointId}/remove`, { method: 'POST', cookie: erin, form: { _csrf: erinCsrf } })).status).toBe(404);
    expect((await fetchPage(`/webhooks/${endpointId}/remove`, { method: 'POST', cookie, form: { _csrf: csrf } })).headers.location).toBe('/webhooks');
    expect((await fetchPage('/webhooks', { cookie })).text).toContain('No endpoints yet.');
  });

  it("creates evidence receivers showing the URL once, refuses a bad key, and deletes one (never another user's)", async () => {
    const cookie = await signedInAs('dana@example.test');
    const form = await fetchPage('/evidence/receivers', { cookie });
    expect(form.text).toContain('Create SendGrid receiver');
    expect(form.text).toContain('No receivers yet.');
    const csrf = csrfOf(form);
    const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    const added = await fetchPage('/evidence/receivers', { method: 'POST', cookie, form: { _csrf: csrf, kind: 'sendgrid', publicKey: key } });
    expect([added.status, added.headers.location], added.text).toEqual([303, '/evidence/receivers']);
    const withUrl = await fetchPage('/evidence/receivers', { cookie: `${cookie}; ${cookieFrom(added, 'mv_new_receiver')}` });
    expect(withUrl.text).toMatch(/value="http:\/\/127\.0\.0\.1:\d+\/v1\/evidence\/hooks\/sendgrid\/mvr_[0-9a-f]{64}"/);
    const sns = await fetchPage('/evidence/receivers', { method: 'POST', cookie, form: { _csrf: csrf, kind: 'sns', topicArn: '' } });
    expect(sns.status, sns.text).toBe(303);
    const later = await fetchPage('/evidence/receivers', { cookie });
    expect(later.text).not.toContain('mvr_');
    expect(later.text).toContain('SES through SNS');
    expect(later.text).toContain('not yet');

    const refused = await fetchPage('/evidence/receivers', { method: 'POST', cookie, form: { _csrf: csrf, kind: 'sendgrid', publicKey: 'not a key' } });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('neither PEM nor base64 DER');

    const receiverId = /action="\/evidence\/receivers\/([^/"]+)\/delete"/.exec(later.text)![1]!;
    const erin = await signedInAs('erin@example.test');
    const erinCsrf = csrfOf(await fetchPage('/evidence/receivers', { cookie: erin }));
    expect((await fetchPage(`/evidence/receivers/${receiverId}/delete`, { method: 'POST', cookie: erin, form: { _csrf: erinCsrf } })).status).toBe(404);
    const deleted = await fetchPage(`/evidence/receivers/${receiverId}/delete`, { method: 'POST', cookie, form: { _csrf: csrf } });
    expect(deleted.headers.location).toBe('/evidence/receivers');
    expect((await app.store.evidenceReceivers.listReceivers((await app.store.accounts.findUserByEmail('dana@example.test'))!.id)).length).toBe(1);
  });

  it("shows one user's job and upload to no one else", async () => {
    const dana = await signedInAs('dana@example.test');
    const csrf = csrfOf(await fetchPage('/lists', { cookie: dana }));
    const uploaded = await upload(dana, 'a.txt', `ann@${MAIL_DOMAIN}\n`);
    expect(uploaded.status, uploaded.text).toBe(303);
    const uploadPath = String(uploaded.headers.location);
    const submitted = await fetchPage(`${uploadPath}/submit`, { method: 'POST', cookie: dana, form: { _csrf: csrf, column: '1' } });
    expect(submitted.status, submitted.text).toBe(303);
    const jobPath = String(submitted.headers.location);
    // A second click on "Verify list" is the same job, paid once.
    const again = await fetchPage(`${uploadPath}/submit`, { method: 'POST', cookie: dana, form: { _csrf: csrf, column: '1' } });
    expect(again.headers.location).toBe(jobPath);
    const user = await app.store.accounts.findUserByEmail('dana@example.test');
    expect(user?.balance).toBe(9);

    const erin = await signedInAs('erin@example.test');
    for (const path of [uploadPath, jobPath, `${jobPath}/download`]) {
      expect((await fetchPage(path, { cookie: erin })).status, path).toBe(404);
    }
    expect((await fetchPage(jobPath, { cookie: dana })).status).toBe(200);
  });

  it("deletes a job from its page with the Delete button (never another user's): the job and its upload are gone", async () => {
    const dana = await signedInAs('dana@example.test');
    const csrf = csrfOf(await fetchPage('/lists', { cookie: dana }));
    const uploadPath = String((await upload(dana, 'to-delete.txt', `ann@${MAIL_DOMAIN}\n`)).headers.location);
    const jobPath = String((await fetchPage(`${uploadPath}/submit`, { method: 'POST', cookie: dana, form: { _csrf: csrf, column: '1' } })).headers.location);
    let page = await fetchPage(jobPath, { cookie: dana });
    for (const deadline = Date.now() + 30_000; !page.text.includes('<strong id="job-status">completed</strong>') && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      page = await fetchPage(jobPath, { cookie: dana });
    }
    expect(page.text).toContain(`action="${jobPath}/delete"`);
    expect(page.text).toMatch(/<button type="submit" class="danger">Delete<\/button>/);
    const balance = (await app.store.accounts.findUserByEmail('dana@example.test'))!.balance;

    // Without the form's token, and as another user: nothing is deleted.
    expect((await fetchPage(`${jobPath}/delete`, { method: 'POST', cookie: dana, form: {} })).status).toBe(403);
    const erin = await signedInAs('erin@example.test');
    const erinCsrf = csrfOf(await fetchPage('/lists', { cookie: erin }));
    expect((await fetchPage(`${jobPath}/delete`, { method: 'POST', cookie: erin, form: { _csrf: erinCsrf, confirm: 'yes' } })).status).toBe(404);
    expect((await fetchPage(jobPath, { cookie: dana })).status).toBe(200);

    const deleted = await fetchPage(`${jobPath}/delete`, { method: 'POST', cookie: dana, form: { _csrf: csrf, confirm: 'yes' } });
    expect([deleted.status, deleted.headers.location]).toEqual([303, '/lists']);
    for (const path of [jobPath, uploadPath, `${jobPath}/download`]) expect((await fetchPage(path, { cookie: dana })).status, path).toBe(404);
    expect((await fetchPage('/lists', { cookie: dana })).text).not.toContain('to-delete.txt');
    // A completed job's charge stays: nothing was left to refund.
    expect((await app.store.accounts.findUserByEmail('dana@example.test'))!.balance).toBe(balance);
  });
  it('lists the uploads not verified yet with a Delete button (CSRF-checked, never for another user), and caps what they hold', async () => {
    await app.createUser('gus@example.test', { credits: 10, password: PASSWORD });
    const gus = await signedInAs('gus@example.test');
    const csrf = csrfOf(await fetchPage('/lists', { cookie: gus }));
    const uploadPath = String((await upload(gus, 'kept-for-later.txt', `ann@${MAIL_DOMAIN}\n`)).headers.location);
    const lists = await fetchPage('/lists', { cookie: gus });
    expect(lists.text).toContain('kept-for-later.txt');
    expect(lists.text).toContain(`action="${uploadPath}/delete"`);

    expect((await fetchPage(`${uploadPath}/delete`, { method: 'POST', cookie: gus, form: {} })).status).toBe(403);
    const erin = await signedInAs('erin@example.test');
    const erinCsrf = csrfOf(await fetchPage('/lists', { cookie: erin }));
    expect((await fetchPage(`${uploadPath}/delete`, { method: 'POST', cookie: erin, form: { _csrf: erinCsrf } })).status).toBe(404);
    const deleted = await fetchPage(`${uploadPath}/delete`, { method: 'POST', cookie: gus, form: { _csrf: csrf } });
    expect([deleted.status, deleted.headers.location]).toEqual([303, '/lists']);
    expect((await fetchPage(uploadPath, { cookie: gus })).status).toBe(404);
    expect((await fetchPage('/lists', { cookie: gus })).text).not.toContain('kept-for-later.txt');

    // 7.5 MiB each: four fit in the 32 MiB an account's lists not verified may hold, the fifth is refused with a page saying why.
    const big = Array.from({ length: 7.5 * 65_536 }, (_, index) => `a${String(index).padStart(6, '0')}@x.test`).join('\n');
    for (let count = 0; count < 4; count++) expect((await upload(gus, `big-${count}.txt`, big)).status).toBe(303);
    const refused = await upload(gus, 'one-too-many.txt', big);
    expect(refused.status).toBe(413);
    expect(refused.text).toContain('Your lists not verified yet would hold over 32 MiB with this one');
    expect((await fetchPage('/lists', { cookie: gus })).text).not.toContain('one-too-many.txt');
  });

  it('approves a device only by a CSRF-checked form, and refuses an account that keeps typing wrong codes', async () => {
    await app.createUser('hal@example.test', { credits: 0, password: PASSWORD });
    const cookie = await signedInAs('hal@example.test');
    const started = await app.call('POST', '/v1/auth/device', { json: { client_name: '<i>box</i>' } });
    const code = started.body.user_code as string;
    const confirm = await fetchPage(`/device?code=${code}`, { cookie });
    expect(confirm.status).toBe(200);
    // The device's name is the device's own words: shown as text.
    expect(confirm.text).toContain('<dd id="device-name">&lt;i&gt;box&lt;/i&gt;</dd>');
    expect((await fetchPage('/device', { method: 'POST', cookie, form: { code, decision: 'approve' } })).status).toBe(403);
    expect((await app.store.deviceGrants.findByUserCode(hashCode(normaliseUserCode(code)!)))?.status).toBe('pending');

    // Fixed windows of a minute: every look-up of this test in one window.
    const intoMinute = (Date.now() / 1000) % 60;
    if (intoMinute > 50) await new Promise((resolve) => setTimeout(resolve, (61 - intoMinute) * 1000));
    for (let wrong = 0; wrong < WRONG_USER_CODES_PER_ACCOUNT; wrong++) {
      const page = await fetchPage('/device?code=BBBB-BBBB', { cookie });
      expect(page.status).toBe(404);
      expect(page.text).toContain('No device is waiting with that code');
    }
    const refused = await fetchPage(`/device?code=${code}`, { cookie });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another account is not held back by it.
    expect((await fetchPage(`/device?code=${code}`, { cookie: await signedInAs('dana@example.test') })).status).toBe(200);
  });
});
