import type { Command } from 'commander';
import { switchFlag, textFlag, type RawFlags } from './parsed-command.js';
import { addStoreFlags, storeFlags, type StoreFlags } from './store-flags.js';

/** The flags of what an install decides about reuse, refunds, webhooks and retention (`serve` and `worker` alike). */
export interface PolicyFlags {
  cacheTtl?: string;
  cacheScope?: string;
  refundUnknown?: boolean;
  allowPrivateWebhooks?: boolean;
  webhookEndpoints?: string;
  webhookTestsPerMinute?: string;
  webhookRetention?: string;
  retention?: string;
  evidenceWindow?: string;
}

/** `--evidence-window`, on `serve` and `worker` and on the commands that verify with `--local`. */
export const EVIDENCE_WINDOW_FLAG = '--evidence-window <duration>';
export const EVIDENCE_WINDOW_HELP =
  "how old an account's own bounces and deliveries may be to decide a verdict (docs/evidence.md); 0 uses none [env MAILVERIFY_EVIDENCE_WINDOW] (default 180d)";

/** The flags `serve` and `worker` share, as given: checked with the environment when the process starts. */
export interface ServiceProcessFlags extends StoreFlags, PolicyFlags {
  logLevel?: string;
  leaseSeconds?: string;
  metricsPort?: string;
  metricsHost?: string;
  standingInterval?: string;
}

/** The flags `serve` and `worker` share: where the store is, how they log, how long their claims on work last. */
export function addServiceProcessFlags(command: Command): Command {
  return addStoreFlags(command, 'where the database and secrets live')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent [env MAILVERIFY_LOG_LEVEL] (default warn)')
    .option(
      '--lease-seconds <n>',
      "how long a claim on bulk work lasts unless renewed: the bound for a runner that is alive but stuck (a dead one's work is taken over at once) [env MAILVERIFY_LEASE_SECONDS] (default 60)",
    )
    .option('--metrics-port <n>', 'serve Prometheus metrics at /metrics on this port, a listener of its own (default: none) [env MAILVERIFY_METRICS_PORT]')
    .option('--metrics-host <address>', 'address of the metrics listener [env MAILVERIFY_METRICS_HOST] (default 127.0.0.1)')
    .option(
      '--standing-interval <duration>',
      'check each egress against the DNSBL zones, its reverse DNS and the HELO name at start and this often, e.g. 30m; 0 turns it off [env MAILVERIFY_STANDING_INTERVAL] (default 30m)',
    )
    .option(
      '--cache-ttl <ttl>',
      'how long a verdict is reused for the same address, across jobs: 0 (off), one duration (14d) or per verdict (valid=14d,invalid=30d); unknown never [env MAILVERIFY_CACHE_TTL] (default valid=14d,invalid=30d,risky=14d,catch_all=7d)',
    )
    .option(
      '--cache-scope <scope>',
      'install: a verdict any account found is reused for all; account: each account reuses only its own [env MAILVERIFY_CACHE_SCOPE] (default install)',
    )
    .option(
      '--refund-unknown',
      'give back the tokens of unknown results (when a job completes; a single verification at once) [env MAILVERIFY_REFUND_UNKNOWN=1]',
    )
    .option(
      '--retention <duration>',
      "delete finished jobs' addresses and results this long after they finished, e.g. 30d; 0 keeps them [env MAILVERIFY_RETENTION] (default: kept)",
    )
    .option(
      '--allow-private-webhooks',
      'let webhook endpoints be on loopback and private networks (test receivers, private installs); link-local and metadata addresses never [env MAILVERIFY_ALLOW_PRIVATE_WEBHOOKS=1]',
    )
    .option('--webhook-endpoints <n>', 'webhook endpoints an account may have [env MAILVERIFY_WEBHOOK_ENDPOINTS] (default 10)')
    .option('--webhook-tests-per-minute <n>', 'webhook test events an account may send per minute [env MAILVERIFY_WEBHOOK_TESTS_PER_MINUTE] (default 5)')
    .option('--webhook-retention <duration>', 'how long settled webhook deliveries and attempts are kept [env MAILVERIFY_WEBHOOK_RETENTION] (default 30d)')
    .option(EVIDENCE_WINDOW_FLAG, EVIDENCE_WINDOW_HELP);
}

export function serviceProcessFlags(flags: RawFlags): ServiceProcessFlags {
  const text = (key: string) => textFlag(flags, key);
  return {
    ...storeFlags(flags),
    logLevel: text('logLevel'),
    leaseSeconds: text('leaseSeconds'),
    metricsPort: text('metricsPort'),
    metricsHost: text('metricsHost'),
    standingInterval: text('standingInterval'),
    cacheTtl: text('cacheTtl'),
    cacheScope: text('cacheScope'),
    refundUnknown: switchFlag(flags, 'refundUnknown'),
    allowPrivateWebhooks: switchFlag(flags, 'allowPrivateWebhooks'),
    webhookEndpoints: text('webhookEndpoints'),
    webhookTestsPerMinute: text('webhookTestsPerMinute'),
    webhookRetention: text('webhookRetention'),
    evidenceWindow: text('evidenceWindow'),
    retention: text('retention'),
  };
}
