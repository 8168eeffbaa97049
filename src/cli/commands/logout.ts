import { forgetToken } from '../../config/credentials.js';
import type { Io } from '../output/io.js';
import type { ProgramOnly } from '../options/program-options.js';
import { createSession } from '../session/session.js';
import { revokeStoredToken } from './support/stored-token.js';

export { programOnly as parse } from '../options/program-options.js';

/** Forgets the stored token of the profile in use, revoked first when this CLI created it. */
export async function run({ program }: ProgramOnly, io: Io): Promise<void> {
  const session = createSession(program, io);
  try {
    const { profile } = session.settings;
    const forgotten = await revokeStoredToken(session, profile);
    if (forgotten === undefined) {
      session.notice(`Not logged in: no token is stored (profile ${profile})`);
    } else {
      forgetToken(session.config, profile);
      session.notice(`Logged out of ${forgotten.baseUrl} (profile ${profile})${forgotten.revoked ? '; the token was revoked' : ''}`);
    }
    if (session.settings.tokenSource === 'environment') {
      session.warn('MAILVERIFY_TOKEN is still set, so commands keep using that token until you unset it');
    }
  } finally {
    await session.close();
  }
}
