import type { GlobalFlags } from '../output/io.js';
import { numberFlag, switchFlag, textFlag, unlessNegated, type ParsedCommand, type RawFlags } from './parsed-command.js';

/** The program-wide flags that say which service to talk to and how (src/cli/session/session.ts reads them). */
export interface ProgramOptions {
  baseUrl?: string;
  profile?: string;
  /** --timeout in milliseconds; checked when a session opens. */
  timeout?: number;
  debug: boolean;
}

export function programOptions(program: RawFlags): ProgramOptions {
  return {
    baseUrl: textFlag(program, 'baseUrl'),
    profile: textFlag(program, 'profile'),
    timeout: numberFlag(program, 'timeout'),
    debug: switchFlag(program, 'debug'),
  };
}

/** The program-wide flags that say how output looks (src/cli/output/io.ts). */
export function ioFlags(program: RawFlags): GlobalFlags {
  return {
    json: switchFlag(program, 'json'),
    quiet: switchFlag(program, 'quiet'),
    color: unlessNegated(program, 'color'),
    input: unlessNegated(program, 'input'),
  };
}

/** The options of a command with no arguments or flags of its own: the program-wide ones alone. */
export interface ProgramOnly {
  program: ProgramOptions;
}

export function programOnly(parsed: ParsedCommand): ProgramOnly {
  return { program: programOptions(parsed.program) };
}
