/**
 * Requests no HTTP client would send, written byte by byte on a plain socket: bad framing, unknown
 * methods, raw spaces and UTF-8 in the path, oversized headers. Every answer is problem+json with
 * the right status (docs/api.md), including those refused by Node's parser before fastify sees
 * the request, and the service goes on answering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../support/raw-http.js';
import { call, startMailWorld, startTestApp, type MailWorld, type TestApp } from '../support/service-app.js';

const CRLF = '\r\n';
const HOST = `Host: service.test${CRLF}`;
/** A request line, then headers (Host first unless `noHost`), then the blank line and the body. */
function req(requestLine: string, headers: string[] = [], body = '', options: { noHost?: boolean } = {}): string {
  return `${requestLine}${CRLF}${options.noHost ? '' : HOST}${headers.map((header) => `${header}${CRLF}`).join('')}${CRLF}${body}`;
}

let token = '';
const auth = () => `Authorization: Bearer ${token}`;

interface Case {
  name: string;
  bytes: () => string | Buffer;
  status: number;
  code: string;
  /** The `Allow` header a 405 must carry. */
  allow?: string;
}

const cases: Case[] = [
  // Framing of the body.
  { name: 'Content-Length that is not a number', bytes: () => req('POST /v1/verify HTTP/1.1', ['Content-Length: abc']), status: 400, code: 'invalid_request' },
  { name: 'negative Content-Length', bytes: () => req('POST /v1/verify HTTP/1.1', ['Content-Length: -1']), status: 400, code: 'invalid_request' },
  {
    name: 'two different Content-Lengths',
    bytes: () => req('POST /v1/verify HTTP/1.1', ['Content-Length: 2', 'Content-Length: 3'], '{}x'),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'Content-Length with Transfer-Encoding',
    bytes: () => req('POST /v1/verify HTTP/1.1', ['Content-Length: 2', 'Transfer-Encoding: chunked'], '0\r\n\r\n'),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'chunk size that is not hex',
    bytes: () => req('POST /v1/verify HTTP/1.1', ['Transfer-Encoding: chunked', 'Content-Type: application/json'], 'zz\r\n{}\r\n0\r\n\r\n'),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'chunk size that overflows',
    bytes: () => req('POST /v1/verify HTTP/1.1', ['Transfer-Encoding: chunked'], 'ffffffffffffffffffff\r\n'),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'chunk without its CRLF',
    bytes: () => req('POST /v1/auth/login HTTP/1.1', ['Transfer-Encoding: chunked', 'Content-Type: application/json'], '2\r\n{}XX0\r\n\r\n'),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'Transfer-Encoding that does not end in chunked',
    bytes: () => req('POST /v1/verify HTTP/1.1', ['Transfer-Encoding: gzip'], 'abc'),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'body over 8 MiB announced',
    bytes: () => req('POST /v1/bulk-verify HTTP/1.1', [auth(), 'Content-Type: application/json', `Content-Length: ${9 * 1024 * 1024}`]),
    status: 413,
    code: 'payload_too_large',
  },
  // Headers.
  { name: 'header line without a colon', bytes: () => req('GET /healthz HTTP/1.1', ['NoColonHere']), status: 400, code: 'invalid_request' },
  { name: 'space inside a header name', bytes: () => req('GET /healthz HTTP/1.1', ['Bad Name: x']), status: 400, code: 'invalid_request' },
  { name: 'space before the colon', bytes: () => req('GET /healthz HTTP/1.1', ['X-Thing : x']), status: 400, code: 'invalid_request' },
  { name: 'NUL in a header value', bytes: () => req('GET /healthz HTTP/1.1', ['X-Thing: a\u0000b']), status: 400, code: 'invalid_request' },
  { name: 'obsolete line folding', bytes: () => req('GET /healthz HTTP/1.1', ['X-Thing: a', ' folded']), status: 400, code: 'invalid_request' },
  { name: 'a 100 KB header', bytes: () => req('GET /healthz HTTP/1.1', [`X-Big: ${'a'.repeat(100 * 1024)}`]), status: 431, code: 'header_fields_too_large' },
  {
    name: '2,000 small headers',
    bytes: () =>
      req(
        'GET /healthz HTTP/1.1',
        Array.from({ length: 2_000 }, (_, i) => `X-H${i}: value`),
      ),
    status: 431,
    code: 'header_fields_too_large',
  },
  { name: 'HTTP/1.1 without Host', bytes: () => req('GET /healthz HTTP/1.1', [], '', { noHost: true }), status: 400, code: 'invalid_request' },
  {
    name: 'an Expect other than 100-continue',
    bytes: () => req('POST /v1/verify HTTP/1.1', ['Expect: 200-ok', 'Content-Type: application/json', 'Content-Length: 2'], '{}'),
    status: 417,
    code: 'expectation_failed',
  },
  // The request line.
  { name: 'binary garbage', bytes: () => Buffer.from([0x00, 0x01, 0x02, 0xff, 0x0d, 0x0a, 0x0d, 0x0a]), status: 400, code: 'invalid_request' },
  { name: 'a response line sent as a request', bytes: () => req('HTTP/1.1 200 OK'), status: 400, code: 'invalid_request' },
  { name: 'method with a character not allowed in a token', bytes: () => req('G@T /healthz HTTP/1.1'), status: 400, code: 'invalid_request' },
  { name: 'version that is not HTTP', bytes: () => req('GET /healthz FTP/1.1'), status: 400, code: 'invalid_request' },
  { name: 'version with trailing junk', bytes: () => req('GET /healthz HTTP/1.1x'), status: 400, code: 'invalid_request' },
  { name: 'HTTP/2.0 on the HTTP/1 line', bytes: () => req('GET /healthz HTTP/2.0'), status: 505, code: 'http_version_not_supported' },
  { name: 'HTTP/3.0', bytes: () => req('GET /healthz HTTP/3.0'), status: 505, code: 'http_version_not_supported' },
  // Methods.
  { name: 'unknown method FOO', bytes: () => req('FOO /healthz HTTP/1.1'), status: 501, code: 'not_implemented' },
  { name: 'unknown method BREW', bytes: () => req('BREW /v1/verify HTTP/1.1'), status: 501, code: 'not_implemented' },
  { name: 'lower-case get', bytes: () => req('get /healthz HTTP/1.1'), status: 501, code: 'not_implemented' },
  { name: 'CONNECT', bytes: () => req('CONNECT example.test:443 HTTP/1.1'), status: 501, code: 'not_implemented' },
  { name: 'GET on a POST route', bytes: () => req('GET /v1/verify HTTP/1.1', [auth()]), status: 405, code: 'method_not_allowed', allow: 'POST' },
  {
    name: 'PUT on the jobs collection',
    bytes: () => req('PUT /v1/bulk-verify HTTP/1.1', [auth(), 'Content-Length: 0']),
    status: 405,
    code: 'method_not_allowed',
    allow: 'POST, GET, HEAD',
  },
  { name: 'DELETE on the account', bytes: () => req('DELETE /v1/account HTTP/1.1', [auth()]), status: 405, code: 'method_not_allowed', allow: 'GET, HEAD' },
  {
    name: 'PATCH on a token',
    bytes: () => req('PATCH /v1/tokens/abc HTTP/1.1', [auth(), 'Content-Length: 0']),
    status: 405,
    code: 'method_not_allowed',
    allow: 'DELETE',
  },
  { name: 'POST on /healthz', bytes: () => req('POST /healthz HTTP/1.1', ['Content-Length: 0']), status: 405, code: 'method_not_allowed', allow: 'GET, HEAD' },
  { name: 'PROPFIND on the account', bytes: () => req('PROPFIND /v1/account HTTP/1.1', [auth()]), status: 405, code: 'method_not_allowed', allow: 'GET, HEAD' },
  // Paths.
  { name: 'raw space in the path', bytes: () => req('GET /v1/acc ount HTTP/1.1'), status: 400, code: 'invalid_request' },
  { name: 'raw UTF-8 in the path', bytes: () => Buffer.from(req('GET /v1/accöunt HTTP/1.1'), 'utf8'), status: 400, code: 'invalid_request' },
  { name: 'NUL in the path', bytes: () => req('GET /v1/\u0000 HTTP/1.1'), status: 400, code: 'invalid_request' },
  { name: 'tab in the path', bytes: () => req('GET /v1/\taccount HTTP/1.1'), status: 400, code: 'invalid_request' },
  { name: 'bad percent-encoding', bytes: () => req('GET /v1/bulk-verify/%zz HTTP/1.1', [auth()]), status: 400, code: 'invalid_request' },
  { name: 'a route that does not exist', bytes: () => req('GET /v2/anything HTTP/1.1'), status: 404, code: 'not_found' },
  { name: 'a dot-file probe', bytes: () => req('GET /.env HTTP/1.1'), status: 404, code: 'not_found' },
  { name: 'a job id longer than any issued', bytes: () => req(`GET /v1/bulk-verify/${'a'.repeat(500)} HTTP/1.1`, [auth()]), status: 404, code: 'not_found' },
  { name: 'a 10,000-character path', bytes: () => req(`GET /${'a'.repeat(10_000)} HTTP/1.1`), status: 414, code: 'uri_too_long' },
  { name: 'a 10,000-character query', bytes: () => req(`GET /healthz?q=${'a'.repeat(10_000)} HTTP/1.1`), status: 414, code: 'uri_too_long' },
  {
    name: 'a 20,000-character path (over the header limit)',
    bytes: () => req(`GET /${'a'.repeat(20_000)} HTTP/1.1`),
    status: 431,
    code: 'header_fields_too_large',
  },
];

describe('malformed HTTP on a plain socket', () => {
  let world: MailWorld;
  let app: TestApp;

  beforeAll(async () => {
    world = await startMailWorld({ mailboxes: [] });
    app = await startTestApp({ world });
    ({ token } = await app.createUser('raw@example.test', { credits: 0 }));
  });

  afterAll(async () => {
    await app?.close();
    await world?.close();
  });

  it('has at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)('$name → $status $code', async ({ bytes, status, code, allow }) => {
    const response = await rawRequest(app.baseUrl, bytes());
    expect(response.status, response.body).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = JSON.parse(response.body) as Record<string, unknown>;
    expect(body).toMatchObject({ type: 'about:blank', status, code });
    expect(typeof body.title).toBe('string');
    expect(typeof body.detail).toBe('string');
    if (allow !== undefined) expect(response.headers.allow).toBe(allow);
    // The service is still up after each one.
    expect((await call(app.baseUrl, 'GET', '/healthz')).status).toBe(200);
  });
});
