import { request } from 'undici';
import { VERSION } from '../../version.js';

/**
 * The two requests an SNS receiver makes (docs/evidence.md "Live from an ESP"): the signing
 * certificate at a message's SigningCertURL, and the GET on a SubscriptionConfirmation's
 * SubscribeURL that confirms the subscription. Both go only to SNS's own hosts, over https
 * (snsUrl); what fetches them is injectable, so tests answer from a loopback server with a
 * certificate of their own.
 */
export interface SnsFetcher {
  /** GETs the URL (already checked by snsUrl); the answer's status and body text. */
  get(url: URL): Promise<{ status: number; body: string }>;
}

/** SNS's regional endpoints: the only hosts a certificate or a confirmation is fetched from. */
const SNS_HOST = /^sns\.[a-z]{2}(-[a-z]+)+-\d\.amazonaws\.com$/;

/** The URL when it is https on an SNS host (no credentials, no other port), else undefined. */
export function snsUrl(text: string | undefined): URL | undefined {
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const plain = url.protocol === 'https:' && url.port === '' && url.username === '' && url.password === '';
  return plain && SNS_HOST.test(url.hostname) ? url : undefined;
}

/** An SNS certificate or confirmation answer is a few kilobytes; more is not SNS talking. */
const MAX_ANSWER_BYTES = 64 * 1024;
const TIMEOUT_MS = 10_000;

/** The production fetcher: undici, no redirects, bounded in time and size. */
export const undiciSnsFetcher: SnsFetcher = {
  async get(url) {
    const response = await request(url, {
      method: 'GET',
      headers: { 'user-agent': `mailverify/${VERSION}` },
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) {
        response.body.destroy();
        throw new Error(`${url.host} answered more than ${MAX_ANSWER_BYTES} bytes`);
      }
      chunks.push(chunk);
    }
    return { status: response.statusCode, body: Buffer.concat(chunks).toString('utf8') };
  },
};

/** Certificates kept at most (SNS signs with one per region at a time) and for how long. */
const CACHE_ENTRIES = 32;
const CACHE_TTL_MS = 24 * 3_600_000;

/**
 * SNS signing certificates by URL, fetched once a day at most: every message of a topic names the
 * same one, and fetching it per message would make each post wait on AWS.
 */
export class SnsCertificates {
  private readonly cache = new Map<string, { pem: string; until: number }>();

  constructor(private readonly fetcher: SnsFetcher) {}

  /** The PEM at the URL (already checked by snsUrl); throws when it cannot be had. */
  async get(url: URL, nowMs = Date.now()): Promise<string> {
    const cached = this.cache.get(url.href);
    if (cached && cached.until > nowMs) return cached.pem;
    const { status, body } = await this.fetcher.get(url);
    if (status !== 200 || !body.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`${url.host} answered ${status} without a certificate`);
    if (this.cache.size >= CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(url.href, { pem: body, until: nowMs + CACHE_TTL_MS });
    return body;
  }
}
