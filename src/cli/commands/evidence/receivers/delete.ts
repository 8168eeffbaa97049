import { terminalSafe } from '../../../../text/sanitize.js';
import type { Io } from '../../../output/io.js';
import { textArg, type ParsedCommand } from '../../../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../../../options/program-options.js';
import { withClient } from '../../../session/with-client.js';

export interface DeleteOptions {
  program: ProgramOptions;
  id: string;
}

export function parse(parsed: ParsedCommand): DeleteOptions {
  return { program: programOptions(parsed.program), id: textArg(parsed, 0) };
}

/** Deletes a receiver: the ESP's posts to its URL are refused from then on. */
export async function run({ program, id }: DeleteOptions, io: Io): Promise<void> {
  await withClient(program, io, async (client) => {
    await client.deleteEvidenceReceiver(id);
    if (!io.quiet) io.stderr.write(`receiver ${terminalSafe(id)} deleted\n`);
  });
}
