/**
 * The signatures an evidence receiver checks (docs/evidence.md "Live from an ESP"): SendGrid's
 * ECDSA P-256 over timestamp and body, and SNS's RSA (SHA-1 and SHA-256) over its canonical
 * string, with keys and a certificate made here.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkSendgridSignature, normalizeSendgridPublicKey } from '../../src/server/receivers/sendgrid-signature.js';
import { snsUrl } from '../../src/server/receivers/sns-fetcher.js';
import { readSnsMessage, snsSignatureValid, snsStringToSign, type SnsMessage } from '../../src/server/receivers/sns-message.js';
import { makeSnsSigner, signSns } from '../support/sns.js';

function sendgridKeys() {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    privateKey,
    spki: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
    pem: String(publicKey.export({ format: 'pem', type: 'spki' })),
  };
}

function sendgridSign(privateKey: ReturnType<typeof sendgridKeys>['privateKey'], timestamp: string, body: string): string {
  return sign('sha256', Buffer.from(timestamp + body), { key: privateKey, dsaEncoding: 'der' }).toString('base64');
}

describe('SendGrid signed event webhook', () => {
  const keys = sendgridKeys();
  const body = JSON.stringify([{ email: 'a@example.com', event: 'bounce', timestamp: 1700000000 }]);
  const now = 1_800_000_000_000;
  const timestamp = String(now / 1000 - 30);

  it('takes the key as SendGrid shows it (base64 DER) or as PEM, and refuses others', () => {
    expect(normalizeSendgridPublicKey(keys.spki)).toBe(keys.spki);
    expect(normalizeSendgridPublicKey(`\n${keys.pem}\n`)).toBe(keys.spki);
    const rsa = String(generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'pem', type: 'spki' }));
    expect(() => normalizeSendgridPublicKey(rsa)).toThrow(/not an ECDSA P-256 key/);
    const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    expect(() => normalizeSendgridPublicKey(p384)).toThrow(/not an ECDSA P-256 key/);
    expect(() => normalizeSendgridPublicKey('not a key')).toThrow(/neither PEM nor base64 DER/);
  });

  it('accepts a post signed by the key within ten minutes', () => {
    const signature = sendgridSign(keys.privateKey, timestamp, body);
    expect(checkSendgridSignature({ publicKey: keys.spki, signature, timestamp, body: Buffer.from(body), nowMs: now })).toBeUndefined();
  });

  it('refuses an unsigned post as unsigned', () => {
    expect(checkSendgridSignature({ publicKey: keys.spki, signature: undefined, timestamp, body: Buffer.from(body), nowMs: now })).toMatchObject({
      refused: 'unsigned',
    });
  });

  it('refuses a changed body, a changed timestamp and a wrong key as forged', () => {
    const signature = sendgridSign(keys.privateKey, timestamp, body);
    const forgedBody = body.replace('bounce', 'delivered');
    expect(checkSendgridSignature({ publicKey: keys.spki, signature, timestamp, body: Buffer.from(forgedBody), nowMs: now })?.refused).toBe('forged');
    const later = String(Number(timestamp) + 1);
    expect(checkSendgridSignature({ publicKey: keys.spki, signature, timestamp: later, body: Buffer.from(body), nowMs: now })?.refused).toBe('forged');
    const other = sendgridKeys();
    const byOther = sendgridSign(other.privateKey, timestamp, body);
    expect(checkSendgridSignature({ publicKey: keys.spki, signature: byOther, timestamp, body: Buffer.from(body), nowMs: now })?.refused).toBe('forged');
    expect(checkSendgridSignature({ publicKey: keys.spki, signature: 'bm90IGRlcg==', timestamp, body: Buffer.from(body), nowMs: now })?.refused).toBe('forged');
  });

  it('refuses a stale (or far future) timestamp even when well signed', () => {
    for (const when of [String(now / 1000 - 11 * 60), String(now / 1000 + 11 * 60)]) {
      const signature = sendgridSign(keys.privateKey, when, body);
      expect(checkSendgridSignature({ publicKey: keys.spki, signature, timestamp: when, body: Buffer.from(body), nowMs: now })).toMatchObject({
        refused: 'forged',
        why: expect.stringMatching(/stale/),
      });
    }
  });
});

describe('SNS message signatures', () => {
  const signer = makeSnsSigner();
  const notification = { Type: 'Notification' as const, Message: '{"notificationType":"Bounce"}', Subject: 'Amazon SES Email Event Notification' };

  it('signs the documented canonical string: a Notification with and without Subject, a confirmation with its token', () => {
    const base = signSns(signer, notification);
    expect(snsStringToSign(base)).toBe(
      `Message\n${base.Message}\nMessageId\n${base.MessageId}\nSubject\n${base.Subject}\nTimestamp\n${base.Timestamp}\nTopicArn\n${base.TopicArn}\nType\nNotification\n`,
    );
    expect(snsStringToSign({ ...base, Subject: undefined })).not.toContain('Subject');
    const confirmation = signSns(signer, { Type: 'SubscriptionConfirmation', Message: 'm', SubscribeURL: 'https://x/y', Token: 't' });
    expect(snsStringToSign(confirmation)).toMatch(
      /^Message\nm\nMessageId\n.*\nSubscribeURL\nhttps:\/\/x\/y\nTimestamp\n.*\nToken\nt\nTopicArn\n.*\nType\nSubscriptionConfirmation\n$/,
    );
  });

  it('accepts versions 1 (SHA-1) and 2 (SHA-256) signed by the certificate', () => {
    expect(snsSignatureValid(signSns(signer, notification, '1'), signer.certificatePem)).toBe(true);
    expect(snsSignatureValid(signSns(signer, notification, '2'), signer.certificatePem)).toBe(true);
  });

  it('refuses a changed field, a version swapped, another certificate and a certificate out of its validity', () => {
    const signed = signSns(signer, notification);
    expect(snsSignatureValid({ ...signed, Message: '{"notificationType":"Delivery"}' }, signer.certificatePem)).toBe(false);
    expect(snsSignatureValid({ ...signed, TopicArn: 'arn:aws:sns:eu-west-1:999999999999:other' }, signer.certificatePem)).toBe(false);
    expect(snsSignatureValid({ ...signed, SignatureVersion: '1' }, signer.certificatePem)).toBe(false);
    expect(snsSignatureValid(signed, makeSnsSigner().certificatePem)).toBe(false);
    expect(snsSignatureValid(signed, signer.certificatePem, Date.now() + 3 * 86_400_000)).toBe(false);
    expect(snsSignatureValid(signed, 'not a certificate')).toBe(false);
  });

  it('reads only the shapes SNS sends', () => {
    const signed = signSns(signer, notification);
    expect(readSnsMessage(signed)).toEqual(signed);
    expect(readSnsMessage([])).toMatch(/not an SNS message/);
    expect(readSnsMessage({ ...signed, Type: 'Other' })).toMatch(/type "Other"/);
    expect(readSnsMessage({ ...signed, SignatureVersion: '3' })).toMatch(/version "3"/);
    const { Signature: _, ...unsigned } = signed;
    expect(readSnsMessage(unsigned)).toMatch(/"Signature"/);
    expect(readSnsMessage({ ...signed, Type: 'SubscriptionConfirmation' } satisfies SnsMessage)).toMatch(/no SubscribeURL/);
  });

  it('fetches certificates and confirmations only over https from SNS regional hosts', () => {
    expect(snsUrl('https://sns.us-east-1.amazonaws.com/SimpleNotificationService-abc.pem')?.hostname).toBe('sns.us-east-1.amazonaws.com');
    expect(snsUrl('https://sns.us-gov-west-1.amazonaws.com/x.pem')).toBeDefined();
    for (const refused of [
      'http://sns.us-east-1.amazonaws.com/x.pem',
      'https://sns.us-east-1.amazonaws.com:8443/x.pem',
      'https://user@sns.us-east-1.amazonaws.com/x.pem',
      'https://sns.s3.amazonaws.com/x.pem',
      'https://sns.us-east-1.amazonaws.com.evil.example/x.pem',
      'https://evil.example/sns.us-east-1.amazonaws.com/x.pem',
      'https://127.0.0.1/x.pem',
      'not a url',
      undefined,
    ]) {
      expect(snsUrl(refused), String(refused)).toBeUndefined();
    }
  });
});
