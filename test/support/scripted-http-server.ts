import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP server whose every answer the test scripts: for driving a client through
 * 429s, 5xx, slow answers and cut connections that the real service would not produce on demand.
 */

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type ScriptedAnswer =
  | {
      status: number;
      headers?: Record<string, string>;
      json?: unknown;
      text?: string;
      delayMs?: number;
      /** Held back until this settles: the test decides the moment the client gets its answer. */
      heldUntil?: Promise<unknown>;
    }
  /** Closes the connection without answering. */
  | { cut: true };

export interface ScriptedServer {
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** `answer` is called with each request and how many came before it. */
export async function startScriptedServer(answer: (request: RecordedRequest, index: number) => ScriptedAnswer): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      const reply = answer(recorded, requests.length);
      requests.push(recorded);
      if ('cut' in reply) {
        req.socket.destroy();
        return;
      }
      const send = () => {
        const payload = reply.text ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
        const type = reply.text !== undefined ? 'text/html' : reply.status >= 400 ? 'application/problem+json' : 'application/json';
        res.writeHead(reply.status, { ...(payload === '' ? {} : { 'content-type': type }), ...reply.headers });
        res.end(payload);
      };
      const answerNow = () => setTimeout(send, reply.delayMs ?? 0);
      void (reply.heldUntil ?? Promise.resolve()).then(answerNow, answerNow);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
