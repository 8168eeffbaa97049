import { terminalSafe } from '../../../text/sanitize.js';
import type { Io } from '../../output/io.js';
import { textArg, type ParsedCommand } from '../../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../../options/program-options.js';
import { withClient } from '../../session/with-client.js';

export interface RevokeOptions {
  program: ProgramOptions;
  id: string;
}

export function parse(parsed: ParsedCommand): RevokeOptions {
  return { program: programOptions(parsed.program), id: textArg(parsed, 0) };
}

/** Revokes a token: the service refuses it from the next request. */
export async function run({ program, id }: RevokeOptions, io: Io): Promise<void> {
  await withClient(program, io, async (client) => {
    await client.deleteToken(id);
    if (!io.quiet) io.stderr.write(`token ${terminalSafe(id)} revoked\n`);
  });
}
