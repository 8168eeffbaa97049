import type { Command } from 'commander';
import { addEngineFlags } from '../options/engine-flags.js';
import { EVIDENCE_WINDOW_FLAG, EVIDENCE_WINDOW_HELP } from '../options/service-flags.js';
import { addForceFlag, addResultOutputFlags } from '../options/output-flags.js';
import { lazy } from './lazy.js';

/** Repeatable: each value is kept. */
const collect = (raw: string, previous: string[] = []) => [...previous, raw];

/** `--fail-on`, the gate of a list's results (docs/cli.md "A gate for cron and CI"). */
function addFailOnFlag(command: Command, condition: string): Command {
  return command.option(
    '--fail-on <gate>',
    `${condition}after writing the results, exit 10 when more than a share of the addresses has a verdict or reason code (invalid=5%, unknown=0.2), or exit 3 when any has one (invalid,unknown); repeatable`,
    collect,
  );
}

function addSubmit(bulk: Command): void {
  const submit = bulk
    .command('submit')
    .description('send a CSV or plain-text list (or - for stdin) as bulk jobs and print their ids')
    .argument('<file>', 'CSV (delimiter , ; or tab, with or without header) or one address per line; - reads stdin')
    .option('--column <name|number>', 'the column holding the addresses (default: found by header name or content)')
    .option('--no-precheck', 'send addresses that fail the syntax check too (they are charged)')
    .option('--wait', 'wait for the jobs, showing progress, then write the results');
  addResultOutputFlags(submit, 'with --wait or --local').option(
    '--wait-timeout <duration>',
    'with --wait: how long to keep trying a service that does not answer, e.g. 90s, 10m, 1h (default 10m)',
  );
  addForceFlag(submit)
    .option('--fresh', 'ask every address again: the service reuses no recent verdict; --local starts a new job, resuming nothing')
    .option(
      '--settle-within <duration>',
      'ask temporary answers (greylisting, throttling) again for at most this long, e.g. 10m: then they settle unknown (default: the retry schedule, about an hour)',
    )
    .option('--local', 'verify on this machine, no service or token: the work is kept in the data dir, so the same command resumes after Ctrl-C');
  addFailOnFlag(submit, 'with --wait or --local: ')
    .option('--sandbox', 'with --local: answer by local part as a test token does (valid@, invalid@, greylisted@, ...), asking no server')
    .option(
      '--max-age <duration>',
      'with --local: reuse a final verdict of an earlier run of the list only when younger than this, e.g. 7d, 0s (default 30d; an unknown is never reused)',
    )
    .option(
      '--data-dir <dir>',
      "with --local: where the work is kept, made private [env MAILVERIFY_LOCAL_DATA_DIR] (default: the local folder of the OS data directory, never the service's)",
    )
    .option(EVIDENCE_WINDOW_FLAG, `with --local: ${EVIDENCE_WINDOW_HELP}`);
  addEngineFlags(submit).action(lazy(() => import('../commands/bulk/submit.js')));
}

function addResults(bulk: Command): void {
  const results = bulk
    .command('results')
    .description('write the results of bulk jobs, merged into the submitted list when it is known (exit 8 while processing)')
    .argument('<job...>', 'job ids (the jobs of one list are merged into one output)');
  addResultOutputFlags(results)
    .option('--input <file>', 'the list to merge the results into (default: the one submitted from here)')
    .option('--column <name|number>', 'with --input: the column holding the addresses')
    .option('--strict', 'refuse (exit 2) to merge into a list that changed since it was submitted, or that has rows none of the jobs covers');
  addFailOnFlag(results, '');
  addForceFlag(results)
    .option('--wait', 'wait for the jobs to complete first, showing progress')
    .option('--wait-timeout <duration>', 'with --wait: how long to keep trying a service that does not answer (default 10m)')
    .action(lazy(() => import('../commands/bulk/results.js')));
}

/** `bulk submit|status|delete|results|list|local prune`. */
export function addBulkCommands(program: Command): void {
  const bulk = program.command('bulk').description('verify a list as asynchronous jobs: submit, follow, fetch results');
  addSubmit(bulk);
  bulk
    .command('status')
    .description('show the progress of bulk jobs')
    .argument('<job...>', 'job ids')
    .option('--watch', 'poll until every job is completed')
    .option('--wait-timeout <duration>', 'with --watch: how long to keep trying a service that does not answer (default 10m)')
    .action(lazy(() => import('../commands/bulk/status.js')));
  bulk
    .command('delete')
    .description('delete bulk jobs from the service: their addresses and results are gone (a job still processing stops, its unverified addresses refunded)')
    .argument('<job...>', 'job ids')
    .action(lazy(() => import('../commands/bulk/delete.js')));
  addResults(bulk);
  bulk
    .command('list')
    .description("list this account's bulk jobs, newest first: id, name, status, processed/total, created")
    .option('--limit <n>', 'at most this many jobs (default 20)')
    .action(lazy(() => import('../commands/bulk/list.js')));
  const local = bulk.command('local').description('the work store of `bulk submit --local` on this machine');
  local
    .command('prune')
    .description("delete the local runs' jobs made longer ago than --older-than: their lists' addresses and verdicts")
    .option('--older-than <duration>', 'e.g. 7d, 12h, 0s for every job (default 30d)')
    .option('--data-dir <dir>', 'the local data dir [env MAILVERIFY_LOCAL_DATA_DIR] (default: the local folder of the OS data directory)')
    .action(lazy(() => import('../commands/bulk/local-prune.js')));
}
