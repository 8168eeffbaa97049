import { removeProfile } from '../../../config/credentials.js';
import type { Io } from '../../output/io.js';
import { createSession, knownProfile } from '../../session/session.js';
import { revokeStoredToken } from '../support/stored-token.js';
import type { ProfileOptions } from './use.js';

export { parse } from './use.js';

/** Forgets a profile and its token, revoking the token first when this CLI created it (as logout does). */
export async function run({ program, name }: ProfileOptions, io: Io): Promise<void> {
  const session = createSession(program, io);
  try {
    knownProfile(session.config, name);
    const forgotten = await revokeStoredToken(session, name);
    removeProfile(session.config, name);
    session.notice(`Removed profile ${name}${forgotten?.revoked ? '; its token was revoked' : ''}`);
  } finally {
    await session.close();
  }
}
