/**
 * A webhook receiver on loopback that checks every delivery itself, with node:crypto's HMAC (not
 * the package the service signs with): Standard Webhooks 1.0, `v1,<base64 HMAC-SHA256 of
 * "id.timestamp.body">` keyed with the base64-decoded part of the secret after `whsec_`. It answers
 * as the test scripts it, and counts the deliveries of one event that are open at the same time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** True when `signatureHeader` (space-separated `v1,<base64>` entries) holds the signature of this delivery under `secret`. */
export function signatureMatches(secret: string, id: string, timestamp: string, body: string, signatureHeader: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return signatureHeader.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    const given = Buffer.from(signature ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export interface Delivery {
  id: string;
  /** `webhook-timestamp`, epoch seconds. */
  timestamp: number;
  body: string;
  /** When it arrived (epoch ms, this process's clock). */
  receivedAt: number;
  /** Whether the signature checked out under the secret the test set. */
  signed: boolean;
}

/** What to answer the n-th delivery (0-based): a status, or `hold` to keep the request open until the sender goes away. */
export type Answer = number | 'hold';

export interface WebhookReceiver {
  url: string;
  /** The secret deliveries are checked with (set once the endpoint is registered). */
  secret: string;
  deliveries: Delivery[];
  /** The most deliveries of one event id that were open at once. */
  mostAtOnce(): number;
  /** Resolves once `count` deliveries have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<Delivery[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(answer: (index: number) => Answer): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const open = new Map<string, number>();
  let most = 0;
  const receiver: WebhookReceiver = {
    url: '',
    secret: '',
    deliveries,
    mostAtOnce: () => most,
    async waitFor(count, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (deliveries.length < count) {
        if (Date.now() > deadline) throw new Error(`${deliveries.length} webhook deliveries arrived, not ${count}, within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return deliveries;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = http.createServer((request, response) => {
    const id = String(request.headers['webhook-id'] ?? '');
    open.set(id, (open.get(id) ?? 0) + 1);
    most = Math.max(most, open.get(id)!);
    // Over when answered, or when the sender goes away without an answer (a held request).
    let over = false;
    const end = () => {
      if (!over) open.set(id, open.get(id)! - 1);
      over = true;
    };
    response.once('finish', end);
    request.socket.once('close', end);
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const timestamp = String(request.headers['webhook-timestamp'] ?? '');
      const signed = signatureMatches(receiver.secret, id, timestamp, body, String(request.headers['webhook-signature'] ?? ''));
      const next = answer(deliveries.length);
      deliveries.push({ id, timestamp: Number(timestamp), body, receivedAt: Date.now(), signed });
      if (next === 'hold') return;
      response.writeHead(next, { 'content-type': 'text/plain' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}
