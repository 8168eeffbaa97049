import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyServerFactory, RawServerDefault } from 'fastify';
import { PROBLEM_CONTENT_TYPE, problemBody, type ProblemCode } from './errors.js';

/**
 * The node HTTP server under the fastify app, set up so that every answer is problem+json, also
 * the ones Node or its parser would give before a request reaches fastify (malformed framing,
 * unknown methods, oversized headers, timeouts, CONNECT, `Expect:`), and so that slow or idle
 * clients cannot hold connections: the timeouts are explicit rather than Node's defaults.
 */

export interface HttpTimeouts {
  /** From connecting to the end of the request headers: a slowloris sending a header a minute is cut off here. */
  headersMs: number;
  /** From connecting to the end of the request body: a body trickled in byte by byte is cut off here. */
  requestMs: number;
  /** How long a keep-alive connection may stay idle between requests. */
  keepAliveMs: number;
}

/**
 * The defaults (docs/operating.md "Run the service"). No socket inactivity timeout on top: a
 * `POST /v1/verify` sends nothing back for as long as the SMTP probe takes, and the client's own
 * side is bounded by the two timeouts above.
 */
export const HTTP_TIMEOUTS: HttpTimeouts = { headersMs: 20_000, requestMs: 60_000, keepAliveMs: 10_000 };
/** The request line and headers together, as Node's default (over it: 431). */
const MAX_HEADER_BYTES = 16 * 1024;
/** The longest request target accepted (over it: 414); no route of ours needs a tenth of it. */
const MAX_URL_CHARS = 8 * 1024;

/** A token as RFC 9110 defines a method name: an unknown one is a 501, anything else on the request line a 400. */
const REQUEST_LINE_WITH_TOKEN_METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ \S+ HTTP\/\d\.\d\r?\n/;
/** A well-formed version that is not 1.x is a 505; a malformed one a 400. */
const REQUEST_LINE_WITH_VERSION = /^\S+ \S+ HTTP\/\d\.\d\r?\n/;
const HTTP_VERSIONS = 'This service speaks HTTP/1.0 and HTTP/1.1.';

function problemPayload(code: ProblemCode, detail: string): { status: number; body: string } {
  const problem = problemBody(code, detail);
  return { status: problem.status, body: JSON.stringify(problem) };
}

/** The whole HTTP response for a socket no request object owns (parser errors, CONNECT); the connection closes after it. */
function rawProblemResponse(code: ProblemCode, detail: string): string {
  const { status, body } = problemPayload(code, detail);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

function endWithProblem(socket: Socket, code: ProblemCode, detail: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.write(rawProblemResponse(code, detail), () => socket.destroy());
}

/** For answers given on a request Node has parsed but fastify never sees. */
function respondWithProblem(response: ServerResponse, code: ProblemCode, detail: string): void {
  const { status, body } = problemPayload(code, detail);
  response.shouldKeepAlive = false;
  response.writeHead(status, { 'content-type': PROBLEM_CONTENT_TYPE, 'content-length': Buffer.byteLength(body) }).end(body);
}

/** What Node hands the 'clientError' listener: the parser's code and, for a parser error, the bytes it choked on. */
type ClientError = Error & { code?: string; rawPacket?: unknown };

function requestLineOf(error: ClientError): string {
  return Buffer.isBuffer(error.rawPacket) ? error.rawPacket.toString('latin1') : '';
}

/** What a parser error means for the client, in the service's words. */
function clientErrorProblem(error: ClientError, timeouts: HttpTimeouts): [ProblemCode, string] {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [
        'request_timeout',
        `The request was not received in time: headers within ${timeouts.headersMs / 1000} s, the whole request within ${timeouts.requestMs / 1000} s.`,
      ];
    case 'HPE_HEADER_OVERFLOW':
      return ['header_fields_too_large', `The request line and headers are over ${MAX_HEADER_BYTES / 1024} KiB.`];
    case 'HPE_INVALID_METHOD':
      return REQUEST_LINE_WITH_TOKEN_METHOD.test(requestLineOf(error))
        ? ['not_implemented', 'This service does not implement that method; its routes use GET, POST and DELETE.']
        : ['invalid_request', 'The request line is not valid HTTP/1.1.'];
    case 'HPE_INVALID_VERSION':
      return REQUEST_LINE_WITH_VERSION.test(requestLineOf(error))
        ? ['http_version_not_supported', HTTP_VERSIONS]
        : ['invalid_request', 'The request line is not valid HTTP/1.1.'];
    default:
      return ['invalid_request', `The request is not valid HTTP/1.1 (${error.code ?? 'unreadable'}).`];
  }
}

/**
 * fastify's `clientErrorHandler`: a request Node's parser refused (bad framing, bad characters in
 * the request line or a header, headers over the limit) or a client too slow, answered with a
 * problem+json on the raw socket, which then closes. A reset connection has nobody to answer.
 */
export function clientErrorHandler(timeouts: HttpTimeouts) {
  return function answer(this: FastifyInstance, error: ClientError, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const [code, detail] = clientErrorProblem(error, timeouts);
    // The code only: the error's rawPacket holds the request's bytes, Authorization header and all.
    this.log.debug({ code: error.code }, 'client error');
    // A response already under way on this connection cannot be followed by another.
    if ((socket as Socket & { _httpMessage?: ServerResponse })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    endWithProblem(socket, code, detail);
  };
}

/**
 * Requests Node answers itself unless told otherwise, or lets through, answered here: a request
 * target too long for any route, `HTTP/2.0` on an HTTP/1 request line (Node's parser takes it), an
 * HTTP/1.1 request without Host (RFC 9112 §3.2: 400), an `Expect:` we do not meet (Node would send
 * a bare 417), CONNECT (Node would close the connection without a word).
 */
function guardRequests(handler: (request: IncomingMessage, response: ServerResponse) => void) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    if (request.httpVersionMajor !== 1) {
      respondWithProblem(response, 'http_version_not_supported', HTTP_VERSIONS);
    } else if ((request.url ?? '').length > MAX_URL_CHARS) {
      respondWithProblem(response, 'uri_too_long', `The request target is over ${MAX_URL_CHARS} characters.`);
    } else if (request.httpVersion === '1.1' && request.headers.host === undefined) {
      respondWithProblem(response, 'invalid_request', 'An HTTP/1.1 request needs a Host header.');
    } else {
      handler(request, response);
    }
  };
}

/** fastify's `serverFactory`: the HTTP server with the timeouts, limits and guards above. */
export function httpServerFactory(timeouts: HttpTimeouts): FastifyServerFactory<RawServerDefault> {
  return (handler) => {
    const server: Server = createServer(
      {
        headersTimeout: timeouts.headersMs,
        requestTimeout: timeouts.requestMs,
        keepAliveTimeout: timeouts.keepAliveMs,
        maxHeaderSize: MAX_HEADER_BYTES,
        // Node looks for expired requests only this often (30 s unless told): a fraction of the
        // shortest timeout keeps them close to their word.
        connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.min(timeouts.headersMs, timeouts.requestMs) / 4)),
        requireHostHeader: false,
      },
      guardRequests(handler),
    );
    server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
      respondWithProblem(response, 'expectation_failed', 'This service meets no Expect header but 100-continue.');
    });
    server.on('connect', (_request: IncomingMessage, socket: Socket) => {
      endWithProblem(socket, 'not_implemented', 'CONNECT is not supported: this service is not a proxy.');
    });
    return server;
  };
}
