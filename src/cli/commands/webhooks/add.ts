import { toSafeJson } from '../../../text/sanitize.js';
import type { Io } from '../../output/io.js';
import { textArg, textFlag, type ParsedCommand } from '../../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../../options/program-options.js';
import { withClient } from '../../session/with-client.js';

// `mailverify webhooks …`: the account's webhook endpoints (docs/api.md "Webhooks"), one small run per subcommand.

export interface AddOptions {
  program: ProgramOptions;
  url: string;
  description?: string;
}

export function parse(parsed: ParsedCommand): AddOptions {
  return { program: programOptions(parsed.program), url: textArg(parsed, 0), description: textFlag(parsed.flags, 'description') };
}

/** Registers an endpoint and prints its signing secret, the only time it is ever shown. */
export async function run({ program, url, description }: AddOptions, io: Io): Promise<void> {
  await withClient(program, io, async (client) => {
    const created = await client.createWebhook(url, description);
    if (io.json) return void io.stdout.write(`${toSafeJson(created)}\n`);
    io.stdout.write(`${created.secret}\n`);
    if (!io.quiet) io.stderr.write(`endpoint ${created.id} added; the secret above verifies its deliveries and is not shown again\n`);
  });
}
