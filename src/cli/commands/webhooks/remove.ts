import { terminalSafe } from '../../../text/sanitize.js';
import type { Io } from '../../output/io.js';
import { textArg, type ParsedCommand } from '../../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../../options/program-options.js';
import { withClient } from '../../session/with-client.js';

/** The endpoint named: `webhooks remove` and `webhooks test` take nothing else. */
export interface EndpointOptions {
  program: ProgramOptions;
  id: string;
}

export function parse(parsed: ParsedCommand): EndpointOptions {
  return { program: programOptions(parsed.program), id: textArg(parsed, 0) };
}

/** Removes an endpoint: nothing more is sent to it. */
export async function run({ program, id }: EndpointOptions, io: Io): Promise<void> {
  await withClient(program, io, async (client) => {
    await client.deleteWebhook(id);
    if (!io.quiet) io.stderr.write(`endpoint ${terminalSafe(id)} removed\n`);
  });
}
