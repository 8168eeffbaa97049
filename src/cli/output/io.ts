import { Chalk, type ChalkInstance } from 'chalk';
import { terminalSafe } from '../../text/sanitize.js';
import { inCi } from './ci.js';
import { UsageError } from './errors.js';

/**
 * Where a command reads and writes, and how it should look there: the one place that decides
 * TTY-ness and colour. Data goes to `stdout`; messages, progress and errors go to `stderr`.
 */
export interface Io {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** The environment the command reads its settings from. */
  env: NodeJS.ProcessEnv;
  /** Colours for stdout and stderr (level 0 when colour is off). */
  color: ChalkInstance;
  /** Machine-readable output requested: no spinners, no colour on data. */
  json: boolean;
  /** Only data and errors: no progress, no notices. */
  quiet: boolean;
  /** Whether progress (spinners, bars) may be drawn on stderr. */
  interactive: boolean;
  /** --no-input, or CI: nothing may wait for someone to type, even on a terminal. */
  noInput: boolean;
}

export interface GlobalFlags {
  json?: boolean;
  quiet?: boolean;
  color?: boolean;
  /** False with --no-input. */
  input?: boolean;
}

/**
 * chalk does not read NO_COLOR itself, so it is decided here: --no-color and NO_COLOR turn colour
 * off, FORCE_COLOR turns it on (its level 1 to 3, as chalk reads it; 0 or false turn it off),
 * otherwise colour follows whether the output is a terminal.
 */
export function colorLevel(flags: GlobalFlags, env: NodeJS.ProcessEnv, isTty: boolean): 0 | 1 | 2 | 3 {
  if (flags.color === false) return 0;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') {
    if (force === '0' || force === 'false') return 0;
    const level = Number(force);
    return level === 2 || level === 3 ? level : 1;
  }
  return isTty ? 1 : 0;
}

export type Streams = Pick<Io, 'stdin' | 'stdout' | 'stderr'>;

export function createIo(flags: GlobalFlags, env: NodeJS.ProcessEnv = process.env, streams: Streams = process): Io {
  const json = flags.json === true;
  const quiet = flags.quiet === true;
  return {
    stdin: streams.stdin,
    stdout: streams.stdout,
    stderr: streams.stderr,
    env,
    color: new Chalk({ level: colorLevel(flags, env, streams.stdout.isTTY === true) }),
    json,
    quiet,
    interactive: streams.stderr.isTTY === true && !json && !quiet && !inCi(env) && env.TERM !== 'dumb',
    noInput: flags.input === false || inCi(env),
  };
}

/** Whether the command may ask at the terminal: stdin is one and nothing forbids waiting there. */
export function canAsk(io: Io): boolean {
  return io.stdin.isTTY === true && !io.noInput;
}

/**
 * Before data is read from stdin (`-`): on a terminal, say so, or the screen just sits there and
 * the next command typed becomes data; with --no-input (or in CI) a terminal there is an error
 * at once, never a wait for a keyboard nobody is at.
 */
export function announceStdinRead(io: Io): void {
  if (io.stdin.isTTY !== true) return;
  if (io.noInput) {
    throw new UsageError(
      '- reads stdin, which is a terminal, and --no-input (or CI) says nobody will type there',
      'pipe or redirect the list in: … - < list.txt',
    );
  }
  io.stderr.write('reading addresses from stdin, one per line; Ctrl-D to end\n');
}

/**
 * A message about a wait (rate limit, job, unreachable service): on stderr, also under --json; only
 * --quiet silences it. It may quote the service's own words, so controls are shown, not obeyed.
 */
export function waitNotice(io: Io, message: string): void {
  if (!io.quiet) io.stderr.write(`mailverify: ${terminalSafe(message)}\n`);
}
