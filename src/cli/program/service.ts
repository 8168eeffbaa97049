import type { Command } from 'commander';
import { addEngineFlags } from '../options/engine-flags.js';
import { addServiceProcessFlags } from '../options/service-flags.js';
import { lazy } from './lazy.js';

/** `serve` and `worker`: the processes that keep the service. */
export function addServiceCommands(program: Command): void {
  const serve = program
    .command('serve')
    .description('run the HTTP service (accounts, tokens, balances, bulk jobs) and a job runner until SIGINT or SIGTERM')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0 picks a free one)', '8025')
    .option('--headers-timeout <ms>', 'close a connection whose request headers are not in by then (default 20000)')
    .option('--request-timeout <ms>', 'close a connection whose whole request is not in by then (default 60000)')
    .option('--keep-alive-timeout <ms>', 'close a keep-alive connection idle this long (default 10000)')
    .option(
      '--trust-proxy <addresses[,hops]>',
      'behind a reverse proxy: believe X-Forwarded-For and X-Forwarded-Proto from these addresses or CIDR ranges (comma list), at most this many hops of them when a number is among them (default: from nobody) [env MAILVERIFY_TRUST_PROXY]',
    )
    .option(
      '--upload-retention <duration>',
      'delete lists uploaded on the dashboard and never verified this long after their upload, e.g. 12h [env MAILVERIFY_UPLOAD_RETENTION] (default 24h)',
    )
    .option('--no-worker', 'the API alone: bulk jobs are worked by `mailverify worker` processes on the same store');
  addEngineFlags(addServiceProcessFlags(serve)).action(lazy(() => import('../commands/serve.js')));

  const worker = program
    .command('worker')
    .description('work bulk jobs (no HTTP) beside any number of other workers and services on one store, until SIGINT or SIGTERM');
  addEngineFlags(addServiceProcessFlags(worker)).action(lazy(() => import('../commands/worker.js')));
}
