import { Command, CommanderError, Option } from 'commander';
import { terminalSafe } from '../text/sanitize.js';
import { VERSION } from '../version.js';
import { CliError, ExitCode, exitCodeName } from './errors.js';
import { cliErrorFor } from './client-errors.js';
import { addEngineOptions } from './engine-flags.js';
import { addExamples } from './help/examples.js';
import { addStoreOptions } from './store-flags.js';

/**
 * Errors are one line on stderr, whatever the message held; a long one is easier to grep than to
 * read. Messages quote service details, file cells and paths: controls among them are shown, not run.
 */
const oneLine = (message: string) => terminalSafe(message.trim().replace(/\s*\n\s*/g, ' '));

/** A command's work: its positional arguments, then its Command (where it reads its flags). */
type Run = (...args: never[]) => Promise<void>;

/**
 * The action of a command whose module is imported only when that command runs. commander calls
 * an action with the positional arguments, the options object and the Command; runs read their
 * options from the Command, so the options object is left out.
 */
function lazy(load: () => Promise<Run>) {
  return async (...args: unknown[]): Promise<void> => {
    const run = (await load()) as (...args: unknown[]) => Promise<void>;
    await run(...args.slice(0, -2), args.at(-1));
  };
}

/** The flags `serve` and `worker` share: where the store is, how they log, how long their claims on work last. */
function addServiceProcessOptions(command: Command): Command {
  return addStoreOptions(command, 'where the database and secrets live')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent [env MAILVERIFY_LOG_LEVEL] (default warn)')
    .option('--lease-seconds <n>', 'how long a claim on bulk work lasts unless renewed: the bound for a runner that is alive but stuck (a dead one\'s work is taken over at once) [env MAILVERIFY_LEASE_SECONDS] (default 60)')
    .option('--metrics-port <n>', 'serve Prometheus metrics at /metrics on this port, a listener of its own (default: none) [env MAILVERIFY_METRICS_PORT]')
    .option('--metrics-host <address>', 'address of the metrics listener [env MAILVERIFY_METRICS_HOST] (default 127.0.0.1)')
    .option('--standing-interval <duration>', 'check each egress against the DNSBL zones, its reverse DNS and the HELO name at start and this often, e.g. 30m; 0 turns it off [env MAILVERIFY_STANDING_INTERVAL] (default 30m)')
    .option('--cache-ttl <ttl>', 'how long a verdict is reused for the same address, across jobs: 0 (off), one duration (14d) or per verdict (valid=14d,invalid=30d); unknown never [env MAILVERIFY_CACHE_TTL] (default valid=14d,invalid=30d,risky=14d,catch_all=7d)')
    .option('--cache-scope <scope>', 'install: a verdict any account found is reused for all; account: each account reuses only its own [env MAILVERIFY_CACHE_SCOPE] (default install)')
    .option('--refund-unknown', 'give back the tokens of unknown results (when a job completes; a single verification at once) [env MAILVERIFY_REFUND_UNKNOWN=1]')
    .option('--retention <duration>', 'delete finished jobs\' addresses and results this long after they finished, e.g. 30d; 0 keeps them [env MAILVERIFY_RETENTION] (default: kept)')
    .option('--allow-private-webhooks', 'let webhook endpoints be on loopback and private networks (test receivers, private installs); link-local and metadata addresses never [env MAILVERIFY_ALLOW_PRIVATE_WEBHOOKS=1]')
    .option('--webhook-endpoints <n>', 'webhook endpoints an account may have [env MAILVERIFY_WEBHOOK_ENDPOINTS] (default 10)')
    .option('--webhook-tests-per-minute <n>', 'webhook test events an account may send per minute [env MAILVERIFY_WEBHOOK_TESTS_PER_MINUTE] (default 5)')
    .option('--webhook-retention <duration>', 'how long settled webhook deliveries and attempts are kept [env MAILVERIFY_WEBHOOK_RETENTION] (default 30d)');
}

/**
 * The whole command tree. Command modules are imported only when their command runs, so that
 * `mailverify --help` loads commander and nothing else heavy (no engine, server or CSV code).
 * commander's own usage errors are left to `reportError`, in both modes.
 */
export function buildProgram(): Command {
  const program = new Command('mailverify')
    .description('Verify whether email addresses are deliverable: a CLI, an HTTP service and the engine behind both.')
    .version(VERSION, '-V, --version')
    .option('--base-url <url>', 'service URL [env MAILVERIFY_BASE_URL] (default http://127.0.0.1:8025)')
    .option('--profile <name>', 'which stored service and token to use [env MAILVERIFY_PROFILE] (default: the one of `profile use`, else "default")')
    .option('--json', 'machine-readable output on stdout')
    .option('-q, --quiet', 'print only data and errors')
    .option('--no-color', 'no colours [env NO_COLOR]')
    .option('--debug', 'trace HTTP requests on stderr (Authorization redacted)')
    .option('--no-input', 'never wait for typing at the terminal: fail instead (also when CI is set)')
    .addOption(new Option('--timeout <ms>', 'HTTP request timeout').argParser(Number))
    // commander's own errors are reported as every other error is (reportError): one line on
    // stderr that says `mailverify:`, with a "did you mean" joined to it and the same hint as --json.
    .configureOutput({ outputError: () => undefined })
    .exitOverride()
    // Every --help shows the program-wide flags too, and ends with examples (help/examples.ts).
    .configureHelp({ showGlobalOptions: true })
    .helpCommand(false);

  const verify = program
    .command('verify')
    .description('verify addresses (one per argument, or - to read one per line from stdin)')
    .argument('<email...>', 'addresses to verify, or - for stdin')
    .option('--local', 'run the engine in this process (no service, no token)')
    .option('--fail-on <results>', 'exit 3 when any verdict or reason code is in this comma list (e.g. invalid,unknown or mailbox_not_found)')
    .option('--fresh', 'through a service: ask the mail host again, reuse no recent verdict (--local always asks)')
    .option('--explain', 'show how each verdict was reached: mail hosts, egress, every SMTP line with its time, what was reused');
  addEngineOptions(verify).action(lazy(async () => (await import('./commands/verify.js')).runVerify));

  const serve = program
    .command('serve')
    .description('run the HTTP service (accounts, tokens, balances, bulk jobs) and a job runner until SIGINT or SIGTERM')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0 picks a free one)', '8025')
    .option('--headers-timeout <ms>', 'close a connection whose request headers are not in by then (default 20000)')
    .option('--request-timeout <ms>', 'close a connection whose whole request is not in by then (default 60000)')
    .option('--keep-alive-timeout <ms>', 'close a keep-alive connection idle this long (default 10000)')
    .option('--trust-proxy <addresses|hops>', 'behind a reverse proxy: believe X-Forwarded-For and X-Forwarded-Proto from these addresses or CIDR ranges (comma list), or from this many hops (default: from nobody) [env MAILVERIFY_TRUST_PROXY]')
    .option('--no-worker', 'the API alone: bulk jobs are worked by `mailverify worker` processes on the same store');
  addEngineOptions(addServiceProcessOptions(serve)).action(lazy(async () => (await import('./commands/serve.js')).runServe));

  const worker = program
    .command('worker')
    .description('work bulk jobs (no HTTP) beside any number of other workers and services on one store, until SIGINT or SIGTERM');
  addEngineOptions(addServiceProcessOptions(worker)).action(lazy(async () => (await import('./commands/worker.js')).runWorker));

  const doctor = program
    .command('doctor')
    .description('check that this host can verify: resolver, outbound SMTP, HELO and MAIL FROM names, proxy, each egress\'s standing (blocklists, reverse DNS, HELO), service, token, clock (exit 1 on a problem)')
    .option('--mx-host <host>', 'a mail host to try SMTP on, repeatable (default: the MX hosts of gmail.com, outlook.com, yahoo.com)', (raw: string, previous: string[] = []) => [...previous, raw.trim()]);
  addEngineOptions(doctor).action(lazy(async () => (await import('./commands/doctor.js')).runDoctor));

  program
    .command('login')
    .description('store a token for the service: from stdin (--with-token), or by email and password')
    .option('--with-token', 'read an API token (mv_...) or a JWT from stdin')
    .option('--email <email>', 'log in as this account; the password is asked for, or read with --password-stdin')
    .option('--password-stdin', 'read the password from stdin (for scripts)')
    .option('--insecure-storage', 'keep the token in the config file (mode 0600), not in the OS keyring')
    .action(lazy(async () => (await import('./commands/login.js')).runLogin));
  program
    .command('logout')
    .description('forget the stored token (and revoke it when this CLI created it)')
    .action(lazy(async () => (await import('./commands/logout.js')).runLogout));
  program
    .command('whoami')
    .description('show the account, balance, rate limit, service and where the token comes from')
    .action(lazy(async () => (await import('./commands/whoami.js')).runWhoami));

  const profile = program.command('profile').description('the services this CLI is logged in to, each with its own URL and token');
  profile
    .command('list')
    .description('list the profiles: which is current, their service, where their token is (--json for an array)')
    .action(lazy(async () => (await import('./commands/profile.js')).runProfileList));
  profile
    .command('use')
    .description('make a profile the current one (--profile and MAILVERIFY_PROFILE still choose another for one command)')
    .argument('<name>', 'a profile (made by `login --profile <name>`)')
    .action(lazy(async () => (await import('./commands/profile.js')).runProfileUse));
  profile
    .command('remove')
    .description('forget a profile and its token (revoked when this CLI created it)')
    .argument('<name>', 'the profile')
    .action(lazy(async () => (await import('./commands/profile.js')).runProfileRemove));

  const bulk = program.command('bulk').description('verify a list as asynchronous jobs: submit, follow, fetch results');
  const submit = bulk
    .command('submit')
    .description('send a CSV or plain-text list (or - for stdin) as bulk jobs and print their ids')
    .argument('<file>', 'CSV (delimiter , ; or tab, with or without header) or one address per line; - reads stdin')
    .option('--column <name|number>', 'the column holding the addresses (default: found by header name or content)')
    .option('--no-precheck', 'send addresses that fail the syntax check too (they are charged)')
    .option('--wait', 'wait for the jobs, showing progress, then write the results')
    .option('--output <file>', 'with --wait or --local: write the results to this file (atomically) instead of stdout')
    .option('--format <format>', 'with --wait or --local: csv, json or ndjson (default: from --output\'s extension, else ndjson)')
    .option('--only <results>', 'with --wait or --local: only rows with these verdicts or reason codes (comma list, e.g. valid,catch_all or valid,mailbox_full)')
    .option('--wait-timeout <duration>', 'with --wait: how long to keep trying a service that does not answer, e.g. 90s, 10m, 1h (default 10m)')
    .option('--force', 'write --output even when results are unknown because the verifier cannot verify (exit 9 still)')
    .option('--fresh', 'ask every address again: the service reuses no recent verdict; --local starts a new job, resuming nothing')
    .option('--local', 'verify on this machine, no service or token: the work is kept in the data dir, so the same command resumes after Ctrl-C')
    .option('--fail-on <results>', 'with --local: exit 3 when any verdict or reason code is in this comma list')
    .option('--data-dir <dir>', 'with --local: where the work is kept, made private [env MAILVERIFY_LOCAL_DATA_DIR] (default: the local folder of the OS data directory, never the service\'s)');
  addEngineOptions(submit).action(lazy(async () => (await import('./commands/bulk/submit.js')).runBulkSubmit));
  bulk
    .command('status')
    .description('show the progress of bulk jobs')
    .argument('<job...>', 'job ids')
    .option('--watch', 'poll until every job is completed')
    .option('--wait-timeout <duration>', 'with --watch: how long to keep trying a service that does not answer (default 10m)')
    .action(lazy(async () => (await import('./commands/bulk/status.js')).runBulkStatus));
  bulk
    .command('delete')
    .description('delete bulk jobs from the service: their addresses and results are gone (a job still processing stops, its unverified addresses refunded)')
    .argument('<job...>', 'job ids')
    .action(lazy(async () => (await import('./commands/bulk/delete.js')).runBulkDelete));
  bulk
    .command('results')
    .description('write the results of bulk jobs, merged into the submitted list when it is known (exit 8 while processing)')
    .argument('<job...>', 'job ids (the jobs of one list are merged into one output)')
    .option('--output <file>', 'write to this file (atomically) instead of stdout')
    .option('--format <format>', 'csv, json or ndjson (default: from --output\'s extension, else ndjson)')
    .option('--only <results>', 'only rows with these verdicts or reason codes (comma list, e.g. valid,catch_all or valid,mailbox_full)')
    .option('--input <file>', 'the list to merge the results into (default: the one submitted from here)')
    .option('--column <name|number>', 'with --input: the column holding the addresses')
    .option('--strict', 'refuse (exit 2) to merge into a list that changed since it was submitted, or that has rows none of the jobs covers')
    .option('--force', 'write --output even when results are unknown because the verifier cannot verify (exit 9 still)')
    .option('--wait', 'wait for the jobs to complete first, showing progress')
    .option('--wait-timeout <duration>', 'with --wait: how long to keep trying a service that does not answer (default 10m)')
    .action(lazy(async () => (await import('./commands/bulk/results.js')).runBulkResults));

  const webhooks = program.command('webhooks').description('the endpoints that receive signed events (a bulk job completed) for this account');
  webhooks
    .command('add')
    .description('register an endpoint and print its signing secret (whsec_..., shown only now)')
    .argument('<url>', 'an http(s) URL that takes POSTs')
    .option('--description <text>', 'a note on what the endpoint is')
    .action(lazy(async () => (await import('./commands/webhooks.js')).runWebhooksAdd));
  webhooks
    .command('list')
    .description('list the endpoints with their last delivery attempt (--json for every field and the last attempts)')
    .action(lazy(async () => (await import('./commands/webhooks.js')).runWebhooksList));
  webhooks
    .command('remove')
    .description('remove an endpoint: nothing more is sent to it')
    .argument('<id>', 'the endpoint id (see webhooks list)')
    .action(lazy(async () => (await import('./commands/webhooks.js')).runWebhooksRemove));
  webhooks
    .command('test')
    .description('send a webhook.test event to an endpoint and print its webhook-id')
    .argument('<id>', 'the endpoint id (see webhooks list)')
    .action(lazy(async () => (await import('./commands/webhooks.js')).runWebhooksTest));

  const tokens = program.command('tokens').description('the API tokens of this account: what each may do and until when');
  tokens
    .command('create')
    .description('create an mv_ API token and print only the token (shown only now)')
    .option('--name <name>', 'a label for the token (default "mailverify-<this host>")')
    .option('--scope <scope...>', 'what it may do, one or more of verify, bulk, results, account (default: all)')
    .option('--expires <duration>', 'when it stops working, from now: 90d, 12h, 30m or seconds (default: never)')
    .action(lazy(async () => (await import('./commands/tokens.js')).runTokensCreate));
  tokens
    .command('list')
    .description('list the tokens with their scopes, expiry and last use (never the secrets)')
    .action(lazy(async () => (await import('./commands/tokens.js')).runTokensList));
  tokens
    .command('revoke')
    .description('revoke a token: it is refused from the next request')
    .argument('<id>', 'the token id (see tokens list)')
    .action(lazy(async () => (await import('./commands/tokens.js')).runTokensRevoke));

  const admin = program
    .command('admin')
    .description('manage users, credits and API tokens in the store of `mailverify serve` (its data dir or database, also while it runs)')
    .option('--create', 'create the database when the data dir holds none (otherwise that is an error)');
  addStoreOptions(admin, 'the service data directory');
  const adminUser = admin.command('user').description('add, list and delete users');
  adminUser
    .command('add')
    .description('add a user')
    .argument('<email>', 'the account address')
    .option('--credits <n>', 'starting balance (default 0)')
    .option('--rate-limit <n>', 'requests per second allowed (default 20)')
    .option('--password-stdin', 'read a login password from stdin')
    .action(lazy(async () => (await import('./commands/admin.js')).runAdminUserAdd));
  adminUser
    .command('delete')
    .description("delete a user and all their data: tokens, jobs with their addresses and results, webhooks, cached verdicts, ledger")
    .argument('<email>', 'the account address')
    .action(lazy(async () => (await import('./commands/admin.js')).runAdminUserDelete));
  adminUser
    .command('list')
    .description('list users with balance and rate limit (--json for an array)')
    .action(lazy(async () => (await import('./commands/admin.js')).runAdminUserList));
  admin
    .command('credits')
    .description('change balances')
    .command('add')
    .description('add credits to a user (negative after -- to take some back)')
    .argument('<email>', 'the account address')
    .argument('<n>', 'credits to add')
    .action(lazy(async () => (await import('./commands/admin.js')).runAdminCreditsAdd));
  admin
    .command('rate-limit')
    .description('change rate limits')
    .command('set')
    .description("set a user's rate limit: <n> requests per window")
    .argument('<email>', 'the account address')
    .argument('<n>', 'requests allowed per window')
    .option('--window <seconds>', 'the window length (default: keep the current one, 1 s for new users)')
    .action(lazy(async () => (await import('./commands/admin.js')).runAdminRateLimitSet));
  admin
    .command('token')
    .description('API tokens')
    .command('create')
    .description('create an mv_ API token for a user and print only the token')
    .argument('<email>', 'the account address')
    .option('--name <name>', 'a label for the token (default "admin")')
    .action(lazy(async () => (await import('./commands/admin.js')).runAdminTokenCreate));

  program
    .command('completion')
    .description('print a shell completion script: commands, subcommands, flags, verdicts, files')
    .argument('<shell>', 'bash, zsh or fish')
    .action(lazy(async () => (await import('./commands/completion.js')).runCompletion));
  program
    .command('help')
    .description('help on a topic (exit-codes, environment, csv) or a command')
    .argument('[topic...]', 'exit-codes, environment, csv, or a command such as "bulk submit"')
    .action(lazy(async () => (await import('./commands/help.js')).runHelp));

  addExamples(program);
  return program;
}

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

/** The service processes run until stopped, and people read their logs, not a terminal: no update notice there. */
const WITHOUT_UPDATE_NOTICE = new Set(['serve', 'worker']);

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
  // Loaded only on a terminal, after the command (src/cli/update-notice.ts).
  if (ran !== undefined && process.stderr.isTTY && !WITHOUT_UPDATE_NOTICE.has(ran.name())) {
    const { json: jsonFlag, quiet } = ran.optsWithGlobals<{ json?: boolean; quiet?: boolean }>();
    (await import('./update-notice.js')).afterCommand({ json: jsonFlag === true, quiet: quiet === true, env: process.env, stderr: process.stderr });
  }
}
