import { CommanderError, type Command } from 'commander';
import { terminalSafe } from '../text/sanitize.js';
import { CliError, ExitCode, exitCodeName } from './output/errors.js';
import { cliErrorFor } from './output/client-errors.js';
import { parsedCommand } from './options/parsed-command.js';
import { ioFlags } from './options/program-options.js';
import { buildProgram } from './program/build.js';

/**
 * Errors are one line on stderr, whatever the message held; a long one is easier to grep than to
 * read. Messages quote service details, file cells and paths: controls among them are shown, not run.
 */
const oneLine = (message: string) => terminalSafe(message.trim().replace(/\s*\n\s*/g, ' '));

/** What an error report says: its exit code, message and hint. */
interface Report {
  exitCode: number;
  message: string;
  hint?: string;
}

function reportOf(error: unknown): Report | undefined {
  if (error instanceof CommanderError) {
    // Help and version asked for are successes; help shown because no command was given (exit
    // code 1 in commander's terms) is a usage error, as is every other commander error.
    if (error.exitCode === 0) return undefined;
    const message = error.code === 'commander.help' ? 'no command given' : error.message.replace(/^error: /, '');
    return { exitCode: ExitCode.usage, message, hint: 'mailverify --help lists the commands and flags' };
  }
  const expected = error instanceof CliError ? error : cliErrorFor(error);
  if (expected !== undefined) return { exitCode: expected.exitCode, message: expected.message, hint: expected.hint };
  return { exitCode: ExitCode.failure, message: `unexpected error: ${error instanceof Error ? error.message : String(error)}` };
}

/**
 * The single place where errors become output and an exit code: one line on stderr, or under
 * --json one JSON object on stderr (`{"error":{"code","message","exitCode","hint"}}`) so that a
 * script reads the failure the way it reads the data. stdout is left alone either way.
 */
export function reportError(error: unknown, stderr: NodeJS.WritableStream = process.stderr, json = false): number {
  const report = reportOf(error);
  if (report === undefined) return ExitCode.ok;
  const message = oneLine(report.message);
  const hint = report.hint === undefined ? undefined : oneLine(report.hint);
  if (json) {
    stderr.write(`${JSON.stringify({ error: { code: exitCodeName(report.exitCode), message, exitCode: report.exitCode, hint } })}\n`);
  } else if (!(error instanceof CommanderError && error.code === 'commander.help')) {
    // Help shown because no command was given is its own answer.
    stderr.write(`mailverify: ${message}${hint ? ` (${hint})` : ''}\n`);
  }
  return report.exitCode;
}

/** Whether --json was given among the options (before a `--` that ends them). */
function jsonRequested(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
}

/**
 * A reader that stops early (`mailverify … | head -1`) closes the pipe, and the next write fails
 * with EPIPE. That is the end of the output, not an error: stop there, quietly, with the exit
 * code decided so far (0 unless the command had already failed). Nothing more is verified, so
 * nothing more is charged, for output nobody reads.
 */
function endAtClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? ExitCode.ok);
  });
}

/**
 * The service processes, which run until stopped. People read their logs, not a terminal: no update
 * notice there. And once one is closed (or failed), it ends the process here rather than wait for an
 * idle event loop: the engine cannot be cancelled, and probes the job runner abandoned (open SMTP
 * sessions, greylist retries due in a minute) would keep the process alive long after the store is
 * closed. Nothing is lost by not waiting for them: their items have no stored result, their leases
 * are released, and they are verified again by whichever runner claims them, charged only once, at
 * submission. This is the one place the service ends the process itself.
 */
const SERVICE_PROCESSES = new Set(['serve', 'worker']);

export async function main(argv: string[] = process.argv): Promise<void> {
  endAtClosedPipe(process.stdout);
  endAtClosedPipe(process.stderr);
  const json = jsonRequested(argv);
  let ran: Command | undefined;
  try {
    await buildProgram()
      .hook('preAction', (_program, action) => void (ran = action))
      .parseAsync(argv);
  } catch (error) {
    process.exitCode = reportError(error, process.stderr, json);
  }
  if (ran !== undefined && SERVICE_PROCESSES.has(ran.name())) process.exit();
  // Loaded only on a terminal, after the command (src/cli/update-notice.ts).
  if (ran !== undefined && process.stderr.isTTY) {
    const { json: jsonFlag, quiet } = ioFlags(parsedCommand([], ran).program);
    (await import('./update-notice.js')).afterCommand({ json: jsonFlag === true, quiet: quiet === true, env: process.env, stderr: process.stderr });
  }
}
