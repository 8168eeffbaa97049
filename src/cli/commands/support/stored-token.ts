import { NotFoundError, UnauthorizedError } from '../../../client/errors.js';
import { readToken } from '../../../config/credentials.js';
import { KeyringError } from '../../../config/errors.js';
import type { Session } from '../../session/session.js';

/** A profile's token, the service it is for, and its id when this CLI created it. */
export interface StoredLogin {
  baseUrl: string;
  token: string;
  tokenId?: string;
}

/**
 * Revokes the token when this CLI created it (login with a password). A token given with
 * `--with-token` belongs to whoever made it and is only forgotten here.
 * Returns whether the service confirmed the token is dead.
 */
export async function revokeLogin(session: Session, login: StoredLogin): Promise<boolean> {
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

/** The token a profile holds, for the service it was stored for; undefined when it holds none. */
export function storedLogin(session: Session, name: string): StoredLogin | undefined {
  const profile = session.config.read().profiles[name];
  if (profile?.baseUrl === undefined) return undefined;
  const { token, unavailable } = readToken(session.config, name, profile);
  if (unavailable !== undefined) throw new KeyringError(`the token of profile "${name}" is in the OS keyring, which does not answer: ${unavailable}`);
  return token === undefined ? undefined : { baseUrl: profile.baseUrl, token, tokenId: profile.tokenId };
}

/**
 * Before a profile's token is forgotten: revokes it when this CLI created it. Returns the service it
 * was for and whether it was revoked, or undefined when the profile holds no token.
 */
export async function revokeStoredToken(session: Session, name: string): Promise<{ baseUrl: string; revoked: boolean } | undefined> {
  const login = storedLogin(session, name);
  return login && { baseUrl: login.baseUrl, revoked: await revokeLogin(session, login) };
}
