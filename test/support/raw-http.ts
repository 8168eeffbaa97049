import net from 'node:net';

/**
 * HTTP at the byte level, for requests no HTTP client would send (bad framing, unknown methods,
 * raw spaces in the path, oversized headers) and for clients that send slowly or not at all.
 */

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Whether the server closed the connection (rather than the test, after a complete response). */
  closedByServer: boolean;
}

export interface RawConnection {
  socket: net.Socket;
  /** Resolves when the server closes the connection, with everything it sent. */
  closed: Promise<string>;
}

/** A TCP connection to `url`'s host and port, optionally from a given local address (127.0.14.x). */
export function connectRaw(url: string, localAddress?: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port), localAddress }, () => {
      socket.off('error', reject);
      let received = '';
      socket.setEncoding('latin1').on('data', (chunk: string) => (received += chunk));
      // A reset after the server's answer is still a close.
      socket.on('error', () => undefined);
      resolve({ socket, closed: new Promise((done) => socket.once('close', () => done(received))) });
    });
    socket.once('error', reject);
  });
}

function parseResponse(text: string): { status: number; headers: Record<string, string>; body: string; complete: boolean } | undefined {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = text.slice(end + 4);
  const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
  return { status: Number(statusLine.split(' ')[1]), headers, body, complete: length !== undefined && Buffer.byteLength(body, 'latin1') >= length };
}

/**
 * Sends `bytes` on a fresh connection and reads one response: until it is complete by its
 * Content-Length, or the server closes the connection. Fails after `timeoutMs` without one.
 */
export async function rawRequest(url: string, bytes: string | Buffer, timeoutMs = 10_000): Promise<RawResponse> {
  const { socket, closed } = await connectRaw(url);
  let received = '';
  let settled = false;
  return new Promise((resolve, reject) => {
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      outcome();
    };
    const timer = setTimeout(() => settle(() => reject(new Error(`no response within ${timeoutMs} ms; received ${JSON.stringify(received)}`))), timeoutMs);
    const finish = (closedByServer: boolean) => {
      const parsed = parseResponse(received);
      if (!parsed) return settle(() => reject(new Error(`not an HTTP response: ${JSON.stringify(received)}`)));
      const body = Buffer.from(parsed.body, 'latin1').toString('utf8');
      settle(() => resolve({ status: parsed.status, headers: parsed.headers, body, closedByServer }));
    };
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (parseResponse(received)?.complete) finish(false);
    });
    void closed.then(() => finish(true));
    socket.write(bytes);
  });
}
