import { DEFAULT_PROFILE, type ProfileConfig } from '../../../config/config-store.js';
import { terminalSafe, toSafeJson } from '../../../text/sanitize.js';
import type { Io } from '../../output/io.js';
import type { ProgramOnly } from '../../options/program-options.js';
import { createSession } from '../../session/session.js';

export { programOnly as parse } from '../../options/program-options.js';

/** Where a profile's token is, as `profile list` says it; null when it has none. */
function tokenPlace(profile: ProfileConfig | undefined): 'keyring' | 'file' | null {
  if (profile?.tokenIn === 'keyring') return 'keyring';
  return profile?.token === undefined ? null : 'file';
}

const PLACE_TEXT = { keyring: 'token in the OS keyring', file: 'token in the config file', none: 'not logged in' } as const;

/** Every stored profile, and the one in use (marked `*`) even when nothing is stored for it yet. */
export async function run({ program }: ProgramOnly, io: Io): Promise<void> {
  const session = createSession(program, io);
  const { settings } = session;
  const { profiles } = session.config.read();
  const names = [...new Set([...Object.keys(profiles), settings.profile])].sort((a, b) =>
    a === DEFAULT_PROFILE ? -1 : b === DEFAULT_PROFILE ? 1 : a.localeCompare(b),
  );
  const rows = names.map((name) => ({
    name,
    current: name === settings.profile,
    baseUrl: profiles[name]?.baseUrl ?? null,
    tokenIn: tokenPlace(profiles[name]),
  }));
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
