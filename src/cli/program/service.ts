import type { Command } from 'commander';
import { addEngineFlags } from '../engine-flags.js';
import { addStoreFlags } from '../store-flags.js';
import { lazyLegacy } from './lazy.js';

/** The flags `serve` and `worker` share: where the store is, how they log, how long their claims on work last. */
function addServiceProcessFlags(command: Command): Command {
  return addStoreFlags(command, 'where the database and secrets live')
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
    .option('--trust-proxy <addresses|hops>', 'behind a reverse proxy: believe X-Forwarded-For and X-Forwarded-Proto from these addresses or CIDR ranges (comma list), or from this many hops (default: from nobody) [env MAILVERIFY_TRUST_PROXY]')
    .option('--no-worker', 'the API alone: bulk jobs are worked by `mailverify worker` processes on the same store');
  addEngineFlags(addServiceProcessFlags(serve)).action(lazyLegacy(async () => (await import('../commands/serve.js')).runServe));

  const worker = program
    .command('worker')
    .description('work bulk jobs (no HTTP) beside any number of other workers and services on one store, until SIGINT or SIGTERM');
  addEngineFlags(addServiceProcessFlags(worker)).action(lazyLegacy(async () => (await import('../commands/worker.js')).runWorker));
}
