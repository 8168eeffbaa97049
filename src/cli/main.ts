import { Command, CommanderError, Option } from 'commander';
import { CliError, ExitCode } from './errors.js';
import { addEngineOptions } from './engine-flags.js';

/**
 * The whole command tree. Command modules are imported only when their command runs, so that
 * `mailverify --help` loads commander and nothing else heavy (no engine, server or CSV code).
 */
export function buildProgram(): Command {
  const program = new Command('mailverify')
    .description('Verify whether email addresses are deliverable: a CLI, an HTTP service and the engine behind both.')
    .version(process.env.npm_package_version ?? '0.1.0', '-V, --version')
    .option('--base-url <url>', 'service URL [env MAILVERIFY_BASE_URL] (default http://127.0.0.1:8025)')
    .option('--json', 'machine-readable output on stdout')
    .option('-q, --quiet', 'print only data and errors')
    .option('--no-color', 'no colours [env NO_COLOR]')
    .option('--debug', 'trace HTTP requests on stderr (Authorization redacted)')
    .addOption(new Option('--timeout <ms>', 'HTTP request timeout').argParser(Number))
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  const verify = program
    .command('verify')
    .description('verify addresses (one per argument, or - to read one per line from stdin)')
    .argument('<email...>', 'addresses to verify, or - for stdin')
    .option('--local', 'run the engine in this process (no service, no token)')
    .option('--fail-on <results>', 'exit 3 when any verdict is in this comma list (e.g. invalid,unknown)');
  addEngineOptions(verify).action(async (emails: string[], _flags: unknown, command: Command) => {
    const { runVerify } = await import('./commands/verify.js');
    await runVerify(emails, command);
  });

  return program;
}

/** The single place where errors become a line on stderr and an exit code. */
export function reportError(error: unknown, stderr: NodeJS.WritableStream = process.stderr): number {
  if (error instanceof CommanderError) {
    // commander has already printed its one-line message; help and version are successes.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
      return ExitCode.ok;
    }
    return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  }
  if (error instanceof CliError) {
    stderr.write(`mailverify: ${error.message}${error.hint ? ` (${error.hint})` : ''}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  stderr.write(`mailverify: unexpected error: ${message}\n`);
  return ExitCode.failure;
}

export async function main(argv: string[] = process.argv): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    process.exitCode = reportError(error);
  }
}
