import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SIGNING_SECRET_BYTES } from '../model.js';

const SECRET_FILE = 'jwt-secret';

/**
 * The signing secret of this install, created on first use beside the database with mode 0600
 * (a file rather than a row, as it always was: the nodes sharing it share the data dir).
 * `wx` makes creation race-free when two processes start at once: the loser reads the winner's.
 */
export function loadOrCreateSigningSecret(dataDir: string): Uint8Array {
  const path = join(dataDir, SECRET_FILE);
  try {
    writeFileSync(path, `${randomBytes(SIGNING_SECRET_BYTES).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const secret = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64url');
  if (secret.length < SIGNING_SECRET_BYTES) throw new Error(`${path} holds no usable JWT secret; delete it to have a new one made`);
  return secret;
}
