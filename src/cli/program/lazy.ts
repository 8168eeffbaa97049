import type { Command } from 'commander';
import type { Io } from '../output/io.js';
import { parsedCommand, type ParsedCommand } from '../options/parsed-command.js';
import { ioFlags } from '../options/program-options.js';

/**
 * A command's module: `parse` turns commander's values (and, for the settings that have one, the
 * environment) into the command's typed options (or throws a UsageError, exit 2), `run` does the
 * work with them, printing through `io`. Tests call both directly, without commander or a process.
 */
export interface CommandModule<Options> {
  parse(parsed: ParsedCommand, env: NodeJS.ProcessEnv): Options | Promise<Options>;
  run(options: Options, io: Io): Promise<void>;
}

/**
 * The action of a command whose module is imported only when that command runs (io.ts too: it
 * loads chalk), so that `--help` stays light. commander calls an action with the positional
 * arguments, its options object and the Command; the options are read from the Command.
 */
export function lazy<Options>(load: () => Promise<CommandModule<Options>>) {
  return async (...args: unknown[]): Promise<void> => {
    const parsed = parsedCommand(args.slice(0, -2), args.at(-1) as Command);
    const [command, { createIo }] = await Promise.all([load(), import('../output/io.js')]);
    const io = createIo(ioFlags(parsed.program));
    await command.run(await command.parse(parsed, io.env), io);
  };
}
