import { request } from 'undici';

/** The dashboard as a browser meets it over HTTP: pages, their cookies and forms, and signing in. */

export interface Page {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface PageRequest {
  method?: 'GET' | 'POST';
  cookie?: string;
  form?: Record<string, string>;
  body?: Buffer | string;
  headers?: Record<string, string>;
}

export async function fetchPage(baseUrl: string, path: string, options: PageRequest = {}): Promise<Page> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.cookie) headers.cookie = options.cookie;
  let body = options.body;
  if (options.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  }
  const response = await request(new URL(path, baseUrl), { method: options.method ?? 'GET', headers, body });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

/** `name=value` of the cookie the page sets, to send back. */
export function cookieFrom(page: Page, name: string): string {
  const setCookie = [page.headers['set-cookie'] ?? []].flat().find((line) => line.startsWith(`${name}=`));
  if (!setCookie) throw new Error(`no ${name} cookie`);
  return setCookie.split(';')[0]!;
}

export function csrfOf(page: Page): string {
  const token = /name="_csrf" value="([^"]*)"/.exec(page.text)?.[1];
  if (token === undefined) throw new Error('no CSRF field on the page');
  return token;
}

/** Posts the sign-in form as a browser does; the answer, and the sign-in cookie it was sent with. */
export async function signIn(baseUrl: string, email: string, password: string): Promise<{ page: Page; cookie: string }> {
  const form = await fetchPage(baseUrl, '/sign-in');
  const cookie = cookieFrom(form, 'mv_sign_in');
  const page = await fetchPage(baseUrl, '/sign-in', { method: 'POST', cookie, form: { _csrf: csrfOf(form), email, password } });
  return { page, cookie };
}
