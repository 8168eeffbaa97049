import type { Command } from 'commander';
import { addEngineFlags } from '../options/engine-flags.js';
import { addForceFlag, addResultOutputFlags } from '../options/output-flags.js';
import { lazy } from './lazy.js';

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
    .option('--local', 'verify on this machine, no service or token: the work is kept in the data dir, so the same command resumes after Ctrl-C')
    .option('--sandbox', 'with --local: answer by local part as a test token does (valid@, invalid@, greylisted@, ...), asking no server')
    .option('--fail-on <results>', 'with --local: exit 3 when any verdict or reason code is in this comma list')
    .option(
      '--data-dir <dir>',
      "with --local: where the work is kept, made private [env MAILVERIFY_LOCAL_DATA_DIR] (default: the local folder of the OS data directory, never the service's)",
    );
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
  addForceFlag(results)
    .option('--wait', 'wait for the jobs to complete first, showing progress')
    .option('--wait-timeout <duration>', 'with --wait: how long to keep trying a service that does not answer (default 10m)')
    .action(lazy(() => import('../commands/bulk/results.js')));
}

/** `bulk submit|status|delete|results`. */
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
}
