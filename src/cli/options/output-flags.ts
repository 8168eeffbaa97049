import type { Command } from 'commander';
import { switchFlag, textFlag, type RawFlags } from './parsed-command.js';

/** The flags that say where and how results are written (`bulk results`, `bulk submit --wait`). */
export interface OutputFlags {
  output?: string;
  format?: string;
  only?: string;
  /** How long a wait bears a service that does not answer (`--wait-timeout`); part of resuming as this run would. */
  waitTimeout?: string;
  /** Replace the --output file even with results that say nothing (the verifier could not verify). */
  force?: boolean;
}

/** --output, --format and --only; `condition` says when they apply (`with --wait or --local`), if not always. */
export function addResultOutputFlags(command: Command, condition?: string): Command {
  const when = condition === undefined ? '' : `${condition}: `;
  // Where results are all a command writes, "write" needs no object.
  const what = condition === undefined ? '' : 'the results ';
  return command
    .option('--output <file>', `${when}write ${what}to this file (atomically) instead of stdout`)
    .option('--format <format>', `${when}csv, json or ndjson (default: from --output's extension, else ndjson)`)
    .option('--only <results>', `${when}only rows with these verdicts or reason codes (comma list, e.g. valid,catch_all or valid,mailbox_full)`);
}

/** --force: an existing --output is kept when the verifier could not verify, unless this says otherwise. */
export function addForceFlag(command: Command): Command {
  return command.option('--force', 'write --output even when results are unknown because the verifier cannot verify (exit 9 still)');
}

/** The output flags as the command line gave them (checked by planOutput). */
export function outputFlags(flags: RawFlags): OutputFlags {
  return {
    output: textFlag(flags, 'output'),
    format: textFlag(flags, 'format'),
    only: textFlag(flags, 'only'),
    waitTimeout: textFlag(flags, 'waitTimeout'),
    force: switchFlag(flags, 'force'),
  };
}
