import { UsageError } from '../../output/errors.js';
import type { Io } from '../../output/io.js';
import { switchFlag, textFlag, type ParsedCommand } from '../../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../../options/program-options.js';
import { toSafeJson } from '../../../text/sanitize.js';
import { withTarget } from './support/target.js';

export interface DeleteOptions {
  program: ProgramOptions;
  selection: { email?: string; source?: string };
  local: boolean;
  dataDir?: string;
}

/** One of --email, --source or --all: deleting everything is never what a missing flag means. */
export function parse(parsed: ParsedCommand): DeleteOptions {
  const { flags } = parsed;
  const email = textFlag(flags, 'email');
  const source = textFlag(flags, 'source');
  const all = switchFlag(flags, 'all');
  const given = [email, source, all ? true : undefined].filter((each) => each !== undefined).length;
  if (given !== 1) throw new UsageError('give one of --email <address>, --source <label> or --all');
  const local = switchFlag(flags, 'local');
  const dataDir = textFlag(flags, 'dataDir');
  if (dataDir !== undefined && !local) throw new UsageError('--data-dir needs --local');
  return { program: programOptions(parsed.program), selection: { email, source }, local, dataDir };
}

export async function run(options: DeleteOptions, io: Io): Promise<void> {
  const deleted = await withTarget(options, io, (target) => target.delete(options.selection));
  if (io.json) io.stdout.write(`${toSafeJson({ deleted })}\n`);
  else if (!io.quiet) io.stderr.write(`${deleted} event${deleted === 1 ? '' : 's'} deleted\n`);
}
