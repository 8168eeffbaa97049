import { Command, CommanderError, Option } from 'commander';
import { CliError, ExitCode } from './errors.js';
import { cliErrorFor } from './client-errors.js';
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
    // Usage errors are one line on stderr (a "did you mean" suggestion joins that line).
    .configureOutput({ outputError: (message, write) => write(`${message.trim().replace(/\s*\n\s*/g, ' ')}\n`) })
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

  const serve = program
    .command('serve')
    .description('run the HTTP service (accounts, tokens, balances, bulk jobs) until SIGINT or SIGTERM')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0 picks a free one)', '8025')
    .option('--data-dir <dir>', 'where the database and secrets live [env MAILVERIFY_DATA_DIR] (default: the OS data directory)')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent [env MAILVERIFY_LOG_LEVEL] (default warn)');
  addEngineOptions(serve).action(async (_flags: unknown, command: Command) => {
    const { runServe } = await import('./commands/serve.js');
    await runServe(command);
  });

  program
    .command('login')
    .description('store a token for the service: from stdin (--with-token), or by email and password')
    .option('--with-token', 'read an API token (mv_...) or a JWT from stdin')
    .option('--email <email>', 'log in as this account; the password is asked for, or read with --password-stdin')
    .option('--password-stdin', 'read the password from stdin (for scripts)')
    .action(async (_flags: unknown, command: Command) => {
      const { runLogin } = await import('./commands/login.js');
      await runLogin(command);
    });
  program
    .command('logout')
    .description('forget the stored token (and revoke it when this CLI created it)')
    .action(async (_flags: unknown, command: Command) => {
      const { runLogout } = await import('./commands/logout.js');
      await runLogout(command);
    });
  program
    .command('whoami')
    .description('show the account, balance, rate limit, service and where the token comes from')
    .action(async (_flags: unknown, command: Command) => {
      const { runWhoami } = await import('./commands/whoami.js');
      await runWhoami(command);
    });

  const bulk = program.command('bulk').description('verify a list as asynchronous jobs: submit, follow, fetch results');
  bulk
    .command('submit')
    .description('send a CSV or plain-text list (or - for stdin) as bulk jobs and print their ids')
    .argument('<file>', 'CSV (delimiter , ; or tab, with or without header) or one address per line; - reads stdin')
    .option('--column <name|number>', 'the column holding the addresses (default: found by header name or content)')
    .option('--no-precheck', 'send addresses that fail the syntax check too (they are charged)')
    .option('--wait', 'wait for the jobs, showing progress, then write the results')
    .option('--output <file>', 'with --wait: write the results to this file (atomically) instead of stdout')
    .option('--format <format>', 'with --wait: csv, json or ndjson (default: from --output\'s extension, else ndjson)')
    .option('--only <results>', 'with --wait: only rows with these verdicts (comma list, e.g. valid,catch_all)')
    .action(async (file: string, _flags: unknown, command: Command) => {
      const { runBulkSubmit } = await import('./commands/bulk/submit.js');
      await runBulkSubmit(file, command);
    });
  bulk
    .command('status')
    .description('show the progress of bulk jobs')
    .argument('<job...>', 'job ids')
    .option('--watch', 'poll until every job is completed')
    .action(async (jobIds: string[], _flags: unknown, command: Command) => {
      const { runBulkStatus } = await import('./commands/bulk/status.js');
      await runBulkStatus(jobIds, command);
    });
  bulk
    .command('results')
    .description('write the results of bulk jobs, merged into the submitted list when it is known (exit 8 while processing)')
    .argument('<job...>', 'job ids (the jobs of one list are merged into one output)')
    .option('--output <file>', 'write to this file (atomically) instead of stdout')
    .option('--format <format>', 'csv, json or ndjson (default: from --output\'s extension, else ndjson)')
    .option('--only <results>', 'only rows with these verdicts (comma list, e.g. valid,catch_all)')
    .option('--input <file>', 'the list to merge the results into (default: the one submitted from here)')
    .option('--column <name|number>', 'with --input: the column holding the addresses')
    .option('--wait', 'wait for the jobs to complete first, showing progress')
    .action(async (jobIds: string[], _flags: unknown, command: Command) => {
      const { runBulkResults } = await import('./commands/bulk/results.js');
      await runBulkResults(jobIds, command);
    });

  const admin = program
    .command('admin')
    .description('manage users, credits and API tokens in the data dir of `mailverify serve` (on its host, also while it runs)')
    .option('--data-dir <dir>', 'the service data directory [env MAILVERIFY_DATA_DIR] (default: the OS data directory)');
  const adminUser = admin.command('user').description('add and list users');
  adminUser
    .command('add')
    .description('add a user')
    .argument('<email>', 'the account address')
    .option('--credits <n>', 'starting balance (default 0)')
    .option('--rate-limit <n>', 'requests per second allowed (default 20)')
    .option('--password-stdin', 'read a login password from stdin')
    .action(async (email: string, _flags: unknown, command: Command) => {
      const { runAdminUserAdd } = await import('./commands/admin.js');
      await runAdminUserAdd(email, command);
    });
  adminUser
    .command('list')
    .description('list users with balance and rate limit (--json for an array)')
    .action(async (_flags: unknown, command: Command) => {
      const { runAdminUserList } = await import('./commands/admin.js');
      await runAdminUserList(command);
    });
  admin
    .command('credits')
    .description('change balances')
    .command('add')
    .description('add credits to a user (negative after -- to take some back)')
    .argument('<email>', 'the account address')
    .argument('<n>', 'credits to add')
    .action(async (email: string, amount: string, _flags: unknown, command: Command) => {
      const { runAdminCreditsAdd } = await import('./commands/admin.js');
      await runAdminCreditsAdd(email, amount, command);
    });
  admin
    .command('rate-limit')
    .description('change rate limits')
    .command('set')
    .description("set a user's rate limit: <n> requests per window")
    .argument('<email>', 'the account address')
    .argument('<n>', 'requests allowed per window')
    .option('--window <seconds>', 'the window length (default: keep the current one, 1 s for new users)')
    .action(async (email: string, limit: string, _flags: unknown, command: Command) => {
      const { runAdminRateLimitSet } = await import('./commands/admin.js');
      await runAdminRateLimitSet(email, limit, command);
    });
  admin
    .command('token')
    .description('API tokens')
    .command('create')
    .description('create an mv_ API token for a user and print only the token')
    .argument('<email>', 'the account address')
    .option('--name <name>', 'a label for the token (default "admin")')
    .action(async (email: string, _flags: unknown, command: Command) => {
      const { runAdminTokenCreate } = await import('./commands/admin.js');
      await runAdminTokenCreate(email, command);
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
  const expected = error instanceof CliError ? error : cliErrorFor(error);
  if (expected !== undefined) {
    stderr.write(`mailverify: ${expected.message}${expected.hint ? ` (${expected.hint})` : ''}\n`);
    return expected.exitCode;
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
