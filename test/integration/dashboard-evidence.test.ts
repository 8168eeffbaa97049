import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieFrom, csrfOf, fetchPage as fetchPageAt, signIn, type Page, type PageRequest } from '../support/dashboard-pages.js';
import { evidenceFixture } from '../support/evidence.js';
import { startMailWorld, startTestApp, type MailWorld, type TestApp } from '../support/service-app.js';

/** The dashboard's Evidence page over HTTP: upload a file, see the counts by kind and source, delete with a confirm. */

const PASSWORD = 'pass phrase of gil';
let world: MailWorld;
let app: TestApp;
const fetchPage = (path: string, options?: PageRequest): Promise<Page> => fetchPageAt(app.baseUrl, path, options);

async function upload(cookie: string, fileName: string, content: string): Promise<Page> {
  const csrf = csrfOf(await fetchPage('/evidence', { cookie }));
  const boundary = 'mailverify-test';
  const body = [
    `--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n`,
    `--${boundary}\r\nContent-Disposition: form-data; name="evidence"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n${content}\r\n`,
    `--${boundary}--\r\n`,
  ].join('');
  return fetchPage('/evidence', { method: 'POST', cookie, body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
}

async function deleteForm(cookie: string, fields: Record<string, string>): Promise<Page> {
  const csrf = csrfOf(await fetchPage('/evidence', { cookie }));
  const body = new URLSearchParams({ _csrf: csrf, ...fields }).toString();
  return fetchPage('/evidence/delete', { method: 'POST', cookie, body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
}

beforeAll(async () => {
  world = await startMailWorld({ mailboxes: [] });
  app = await startTestApp({ world });
  await app.createUser('gil@example.test', { credits: 10, password: PASSWORD });
});

afterAll(async () => {
  await app?.close();
  await world?.close();
});

describe('the Evidence page', () => {
  it('imports an uploaded file, counts by kind and source, and deletes only what a ticked form names', async () => {
    const { page: signedIn } = await signIn(app.baseUrl, 'gil@example.test', PASSWORD);
    const cookie = cookieFrom(signedIn, 'mv_session');
    expect((await fetchPage('/evidence', { cookie })).text).toContain('No evidence yet.');

    const imported = await upload(cookie, 'dsn.eml', readFileSync(evidenceFixture('dsn-user-unknown.eml'), 'utf8'));
    expect([imported.status, imported.headers.location]).toEqual([303, '/evidence?read=2&added=2&skipped=0']);
    const shown = await fetchPage(String(imported.headers.location), { cookie });
    expect(shown.text).toContain('Read 2 events, 2 new');
    expect(shown.text).toMatch(/<td>dsn<\/td><td>bounce<\/td><td>2<\/td>/);
    await upload(cookie, 'events.csv', readFileSync(evidenceFixture('events.csv'), 'utf8'));

    // Without the box ticked nothing is deleted.
    expect((await deleteForm(cookie, { source: 'dsn' })).status).toBe(400);
    expect((await fetchPage('/evidence', { cookie })).text).toMatch(/<td>dsn<\/td><td>bounce<\/td><td>2<\/td>/);
    const bySource = await deleteForm(cookie, { source: 'dsn', confirm: 'yes' });
    expect(bySource.headers.location).toBe('/evidence?deleted=2');
    const left = (await fetchPage('/evidence', { cookie })).text;
    expect(left).not.toMatch(/<td>dsn<\/td>/);
    expect(left).toMatch(/<td>csv<\/td>/);
    await deleteForm(cookie, { confirm: 'yes' });
    expect((await fetchPage('/evidence', { cookie })).text).toContain('No evidence yet.');
  });
});
