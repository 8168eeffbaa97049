import type { ConfigStore, ProfileConfig } from './config-store.js';
import { KeyringError } from './errors.js';
import { keyringAccount, openKeyring, reason, type KeyringAccess } from './keyring.js';

/** A token for a service, as login stores it. */
export interface Login {
  baseUrl: string;
  token: string;
  /** Set when this CLI created the token, so that logout may revoke it. */
  tokenId?: string;
}

/** Where a stored token went; `fallback` says why a token that would have gone to the keyring is in the file. */
export type Stored = { in: 'keyring' } | { in: 'file'; fallback?: string };

/** How the keyring is reached: the real one, unless a test says otherwise. */
export type OpenKeyring = () => KeyringAccess;

/** Removes a profile's token from the keyring when it is there; a failure is the caller's to report. */
function dropKeyringToken(store: ConfigStore, name: string, profile: ProfileConfig | undefined, open: OpenKeyring): void {
  if (profile?.tokenIn !== 'keyring') return;
  const access = open();
  const unreachable = (why: string) => new KeyringError(`the token of profile "${name}" is in the OS keyring, which does not answer: ${why}`);
  if ('unavailable' in access) throw unreachable(access.unavailable);
  try {
    access.keyring.delete(keyringAccount(name, store.dir));
  } catch (error) {
    throw unreachable(reason(error));
  }
}

/**
 * Stores a login in a profile: the token in the OS keyring where there is one (the file then holds
 * none), else in the 0600 config file; `insecure` (login --insecure-storage) chooses the file.
 */
export function saveLogin(store: ConfigStore, name: string, login: Login, options: { insecure?: boolean; open?: OpenKeyring } = {}): Stored {
  const open = options.open ?? openKeyring;
  const previous = store.read().profiles[name];
  const ids = login.tokenId === undefined ? {} : { tokenId: login.tokenId };
  let fallback: string | undefined;
  if (!options.insecure) {
    const access = open();
    if ('keyring' in access) {
      try {
        access.keyring.set(keyringAccount(name, store.dir), login.token);
        store.saveProfile(name, { baseUrl: login.baseUrl, tokenIn: 'keyring', ...ids });
        return { in: 'keyring' };
      } catch (error) {
        fallback = reason(error);
      }
    } else fallback = access.unavailable;
  }
  store.saveProfile(name, { baseUrl: login.baseUrl, token: login.token, ...ids });
  // A keyring token of an earlier login would outlive the profile's pointer to it.
  try {
    dropKeyringToken(store, name, previous, open);
  } catch {
    // Unreachable now: it stays there, unused; `profile remove` or a later logout cannot see it either.
  }
  return fallback === undefined ? { in: 'file' } : { in: 'file', fallback };
}

/** A profile's stored token, from wherever it is; `unavailable` when it is in a keyring that does not answer. */
export function readToken(store: ConfigStore, name: string, profile: ProfileConfig, open: OpenKeyring = openKeyring): { token?: string; unavailable?: string } {
  if (profile.tokenIn !== 'keyring') return { token: profile.token };
  const access = open();
  if ('unavailable' in access) return { unavailable: access.unavailable };
  try {
    return { token: access.keyring.get(keyringAccount(name, store.dir)) };
  } catch (error) {
    return { unavailable: reason(error) };
  }
}

/** Forgets a profile's token (from the keyring or the file) and keeps its service, so that `login` goes back there. */
export function forgetToken(store: ConfigStore, name: string, open: OpenKeyring = openKeyring): void {
  const profile = store.read().profiles[name];
  if (profile === undefined) return;
  dropKeyringToken(store, name, profile, open);
  store.saveProfile(name, profile.baseUrl === undefined ? {} : { baseUrl: profile.baseUrl });
}

/** Removes a profile and its token. */
export function removeProfile(store: ConfigStore, name: string, open: OpenKeyring = openKeyring): void {
  dropKeyringToken(store, name, store.read().profiles[name], open);
  store.removeProfile(name);
}
