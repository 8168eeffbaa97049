import type { Command } from 'commander';
import { NotFoundError, UnauthorizedError } from '../../client/errors.js';
import { createSession, type Session } from '../session.js';

/**
 * Revokes the token when this CLI created it (login with a password). A token given with
 * `--with-token` belongs to whoever made it and is only forgotten here.
 * Returns whether the service confirmed the token is dead.
 */
async function revoke(session: Session, login: { baseUrl: string; token: string; tokenId?: string }): Promise<boolean> {
  if (login.tokenId === undefined) return false;
  try {
    await session.client({ token: login.token, baseUrl: login.baseUrl }).deleteToken(login.tokenId);
    return true;
  } catch (error) {
    // Already revoked or deleted elsewhere: the goal is reached.
    if (error instanceof UnauthorizedError || error instanceof NotFoundError) return true;
    const reason = error instanceof Error ? error.message : String(error);
    session.warn(`could not revoke the token on ${login.baseUrl} (${reason}); it is forgotten here but still valid there until someone revokes it`);
    return false;
  }
}

export async function runLogout(command: Command): Promise<void> {
  const session = createSession(command);
  try {
    const { baseUrl, token, tokenId } = session.config.read();
    if (token === undefined || baseUrl === undefined) {
      session.notice('Not logged in: no token is stored');
    } else {
      const revoked = await revoke(session, { baseUrl, token, tokenId });
      session.config.forgetLogin();
      session.notice(`Logged out of ${baseUrl}${revoked ? '; the token was revoked' : ''}`);
    }
    if (session.settings.tokenSource === 'environment') {
      session.warn('MAILVERIFY_TOKEN is still set, so commands keep using that token until you unset it');
    }
  } finally {
    await session.close();
  }
}
