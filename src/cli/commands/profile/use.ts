import { DEFAULT_PROFILE } from '../../../config/config-store.js';
import type { Io } from '../../output/io.js';
import { textArg, type ParsedCommand } from '../../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../../options/program-options.js';
import { createSession, knownProfile } from '../../session/session.js';

/** The profile named: `profile use` and `profile remove` take nothing else. */
export interface ProfileOptions {
  program: ProgramOptions;
  name: string;
}

export function parse(parsed: ParsedCommand): ProfileOptions {
  return { program: programOptions(parsed.program), name: textArg(parsed, 0) };
}

/** Makes a profile the current one. */
export async function run({ program, name }: ProfileOptions, io: Io): Promise<void> {
  const session = createSession(program, io);
  // default is always there to go back to, logged in or not.
  if (name !== DEFAULT_PROFILE) knownProfile(session.config, name);
  session.config.useProfile(name);
  session.notice(
    `Now using profile ${name}${session.settings.profileSource === 'environment' ? ' (but MAILVERIFY_PROFILE still chooses another while it is set)' : ''}`,
  );
}
