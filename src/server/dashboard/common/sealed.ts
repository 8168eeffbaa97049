import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Text sealed for a moment in the visitor's browser (AES-256-GCM under a key derived from the
 * session's own secret, which every node reads from the store): what a page shows once after a
 * redirect, without keeping it on any node. A cookie from another session, or altered, opens to
 * nothing.
 */
const keyOf = (sessionSecret: string) => createHash('sha256').update(`mailverify-sealed:${sessionSecret}`).digest();

export function seal(sessionSecret: string, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(sessionSecret), iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

export function unseal(sessionSecret: string, sealed: string): string | undefined {
  try {
    const raw = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyOf(sessionSecret), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
