/** The service's API as the benchmarks call it: a user's JSON requests, a bulk job submitted and waited for. */
import { request } from 'undici';

/** A JSON request with the bench user's token; rejects on a status of 300 or more. */
export async function call(url, { method = 'GET', token, body } = {}) {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const response = await request(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${method} ${url} answered ${response.statusCode}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Submits a bulk job of `emails` as the service's bench user; resolves with its id. */
export async function submit(service, emails) {
  return (await call(`${service.url}/v1/bulk-verify`, { method: 'POST', token: service.token, body: { emails } })).jobId;
}

/** Resolves once the job is completed, polling its progress every `pollMs` (a short job's figure is no finer than that). */
export async function untilCompleted(service, jobId, { pollMs = 50 } = {}) {
  for (;;) {
    const progress = await call(`${service.url}/v1/bulk-verify/${jobId}/progress`, { token: service.token });
    if (progress.status === 'completed') return;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
