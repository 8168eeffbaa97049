/** The service's API as the benchmarks call it: JSON in and out, a bearer token, any non-2xx an error. */
import { request } from 'undici';

export async function call(url, { method = 'GET', token, body } = {}) {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const response = await request(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${method} ${url} answered ${response.statusCode}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}
