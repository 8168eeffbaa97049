import { Chalk, type ChalkInstance } from 'chalk';

/**
 * Where a command reads and writes, and how it should look there: the one place that decides
 * TTY-ness and colour. Data goes to `stdout`; messages, progress and errors go to `stderr`.
 */
export interface Io {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Colours for stdout and stderr (level 0 when colour is off). */
  color: ChalkInstance;
  /** Machine-readable output requested: no spinners, no colour on data. */
  json: boolean;
  /** Only data and errors: no progress, no notices. */
  quiet: boolean;
  /** Whether progress (spinners, bars) may be drawn on stderr. */
  interactive: boolean;
}

export interface GlobalFlags {
  json?: boolean;
  quiet?: boolean;
  color?: boolean;
}

/**
 * chalk does not read NO_COLOR itself, so it is decided here: --no-color and NO_COLOR turn colour
 * off, FORCE_COLOR turns it on, otherwise colour follows whether stdout is a terminal.
 */
export function colorLevel(flags: GlobalFlags, env: NodeJS.ProcessEnv, isTty: boolean): 0 | 1 | 2 | 3 {
  if (flags.color === false) return 0;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force === '0' || force === 'false' ? 0 : 1;
  return isTty ? 1 : 0;
}

export function createIo(flags: GlobalFlags, env: NodeJS.ProcessEnv = process.env): Io {
  const stdoutTty = process.stdout.isTTY === true;
  const stderrTty = process.stderr.isTTY === true;
  const json = flags.json === true;
  const quiet = flags.quiet === true;
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    color: new Chalk({ level: colorLevel(flags, env, stdoutTty) }),
    json,
    quiet,
    interactive: stderrTty && !json && !quiet && env.CI !== 'true',
  };
}
