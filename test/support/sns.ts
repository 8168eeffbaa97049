import { execFileSync } from 'node:child_process';
import { createSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { snsStringToSign, type SnsMessage } from '../../src/server/receivers/sns-message.js';
import type { SnsFetcher } from '../../src/server/receivers/sns-fetcher.js';
import { startScriptedServer, type ScriptedServer } from './scripted-http-server.js';
import { testTempDir } from './temp-dirs.js';

/**
 * SNS as a receiver test meets it: a signing certificate of the test's own (made by `openssl`, as
 * SNS's is an RSA certificate), messages signed with its key, and an SNS host on loopback that
 * serves the certificate and takes the subscription's confirmation GET, reached through the
 * receiver's injectable fetcher.
 */

export interface SnsSigner {
  certificatePem: string;
  keyPem: string;
}

/** A self-signed RSA certificate valid from now for a day, as SNS's signing certificates are RSA. */
export function makeSnsSigner(): SnsSigner {
  const dir = testTempDir('sns-cert');
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=sns.amazonaws.com'], {
    stdio: 'ignore',
  });
  return { certificatePem: readFileSync(cert, 'utf8'), keyPem: readFileSync(key, 'utf8') };
}

export const TEST_REGION_HOST = 'sns.eu-west-1.amazonaws.com';
export const CERT_URL = `https://${TEST_REGION_HOST}/SimpleNotificationService-test.pem`;
export const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:ses-bounces';

type Unsigned = Omit<SnsMessage, 'Signature' | 'SignatureVersion' | 'SigningCertURL' | 'MessageId' | 'Timestamp' | 'TopicArn'> &
  Partial<Pick<SnsMessage, 'SigningCertURL' | 'MessageId' | 'Timestamp' | 'TopicArn'>>;

/** A message as SNS would send it, signed with the signer's key (version 2, SHA-256, unless told). */
export function signSns(signer: SnsSigner, fields: Unsigned, version: '1' | '2' = '2'): SnsMessage {
  const message: SnsMessage = {
    MessageId: 'd3b1f1c2-0000-4000-8000-000000000001',
    Timestamp: new Date().toISOString(),
    TopicArn: TOPIC_ARN,
    SigningCertURL: CERT_URL,
    ...fields,
    SignatureVersion: version,
    Signature: '',
  };
  const sign = createSign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256');
  sign.update(snsStringToSign(message), 'utf8');
  return { ...message, Signature: sign.sign(signer.keyPem, 'base64') };
}

export interface LoopbackSns {
  server: ScriptedServer;
  /** The receiver's fetcher: what it would GET from an SNS host, asked of the loopback server instead. */
  fetcher: SnsFetcher;
  /** The paths the receiver GOT, in order. */
  gets(): string[];
  close(): Promise<void>;
}

/** An SNS host on loopback: the certificate at any `.pem` path, 200 to a confirmation GET. */
export async function startLoopbackSns(signer: SnsSigner): Promise<LoopbackSns> {
  const server = await startScriptedServer((recorded) =>
    recorded.url.endsWith('.pem') ? { status: 200, text: signer.certificatePem } : { status: 200, text: '<ConfirmSubscriptionResponse/>' },
  );
  const fetcher: SnsFetcher = {
    async get(url) {
      const response = await request(new URL(url.pathname + url.search, server.baseUrl));
      return { status: response.statusCode, body: await response.body.text() };
    },
  };
  return { server, fetcher, gets: () => server.requests.map((request) => request.url), close: () => server.close() };
}
