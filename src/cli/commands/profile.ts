import type { Command } from 'commander';
import { DEFAULT_PROFILE, type ProfileConfig } from '../../config/config-store.js';
import { removeProfile } from '../../config/credentials.js';
import { terminalSafe, toSafeJson } from '../../text/sanitize.js';
import { commandSession } from '../command-session.js';
import { checkProfileName, noSuchProfile, type Session } from '../session.js';
import { revokeStoredToken } from './logout.js';

/** Where a profile's token is, as `profile list` says it; null when it has none. */
function tokenPlace(profile: ProfileConfig | undefined): 'keyring' | 'file' | null {
  if (profile?.tokenIn === 'keyring') return 'keyring';
  return profile?.token === undefined ? null : 'file';
}

const PLACE_TEXT = { keyring: 'token in the OS keyring', file: 'token in the config file', none: 'not logged in' } as const;

function knownProfile(session: Session, name: string): ProfileConfig {
  checkProfileName(name);
  const profile = session.config.read().profiles[name];
  if (profile === undefined) throw noSuchProfile(name);
  return profile;
}

/** Every stored profile, and the one in use (marked `*`) even when nothing is stored for it yet. */
export async function runProfileList(command: Command): Promise<void> {
  const session = commandSession(command);
  const { io, settings } = session;
  const { profiles } = session.config.read();
  const names = [...new Set([...Object.keys(profiles), settings.profile])].sort((a, b) => (a === DEFAULT_PROFILE ? -1 : b === DEFAULT_PROFILE ? 1 : a.localeCompare(b)));
  const rows = names.map((name) => ({ name, current: name === settings.profile, baseUrl: profiles[name]?.baseUrl ?? null, tokenIn: tokenPlace(profiles[name]) }));
  if (io.json) {
    io.stdout.write(`${toSafeJson(rows)}\n`);
    return;
  }
  const width = Math.max(...names.map((name) => name.length)) + 2;
  const urlWidth = Math.max(...rows.map((row) => (row.baseUrl ?? '-').length)) + 2;
  for (const row of rows) {
    const line = `${row.current ? '*' : ' '} ${row.name.padEnd(width)}${(row.baseUrl ?? '-').padEnd(urlWidth)}${PLACE_TEXT[row.tokenIn ?? 'none']}`;
    io.stdout.write(`${terminalSafe(line)}\n`);
  }
}

export async function runProfileUse(name: string, command: Command): Promise<void> {
  const session = commandSession(command);
  // default is always there to go back to, logged in or not.
  if (name !== DEFAULT_PROFILE) knownProfile(session, name);
  session.config.useProfile(name);
  session.notice(`Now using profile ${name}${session.settings.profileSource === 'environment' ? ' (but MAILVERIFY_PROFILE still chooses another while it is set)' : ''}`);
}

/** Forgets a profile and its token, revoking the token first when this CLI created it (as logout does). */
export async function runProfileRemove(name: string, command: Command): Promise<void> {
  const session = commandSession(command);
  try {
    knownProfile(session, name);
    const forgotten = await revokeStoredToken(session, name);
    removeProfile(session.config, name);
    session.notice(`Removed profile ${name}${forgotten?.revoked ? '; its token was revoked' : ''}`);
  } finally {
    await session.close();
  }
}
