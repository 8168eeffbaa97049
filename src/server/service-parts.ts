import pino from 'pino';
import type { WatchedVerifier } from '../engine/index.js';
import type { EngineOptions } from '../engine/core/types.js';
import { speakingToApiUsers } from './verifier/api-user-reasons.js';
import type { BackgroundLog } from './background/log.js';
import { startJobRunner, type JobRunner } from './jobs/runner.js';
import { instrumentStore } from './metrics/instrument-store.js';
import { startMetricsListener, type MetricsListener } from './metrics/listener.js';
import { Metrics } from './metrics/metrics.js';
import { reusingResults, type ReusePolicy, type ServiceVerifier } from './verifier/result-reuse.js';
import { shareHostSlots } from './verifier/shared-host-slots.js';
import { usingEvidence } from './verifier/evidence-verifier.js';
import { openStore, type StoreLocation } from './store/open/open-store.js';
import type { Holder, Store } from './store/store.js';
import { watchWebhooks } from './metrics/webhook-metrics.js';
import { benchExpirer } from './maintenance/bench-expirer.js';
import { dueWaker } from './maintenance/due-waker.js';
import { rescuer } from './maintenance/rescuer.js';
import { retention } from './maintenance/retention.js';
import type { MaintenanceService } from './maintenance/service.js';
import { startMaintenance, type Maintenance } from './maintenance/supervisor.js';
import { webhookPruner } from './maintenance/webhook-pruner.js';
import { startWebhookDeliverer } from './webhooks/deliverer.js';
import type { WebhookPolicy } from './webhooks/policy.js';
import { retrySchedule } from './webhooks/retry-schedule.js';

/** Where the metrics listener goes (`--metrics-host`/`--metrics-port`); none when not given. */
export interface MetricsAt {
  host: string;
  port: number;
}

/**
 * What an install decides about reuse, refunds, webhooks and retention (`--cache-ttl`,
 * `--cache-scope`, `--refund-unknown`, the webhook flags, `--retention`); set alike on every node.
 */
export interface ServicePolicy {
  /** Reuse recent verdicts (the result cache); none when off. */
  reuse?: ReusePolicy;
  /** Give back the tokens of every `unknown` result. */
  refundUnknown: boolean;
  /** What accounts' webhooks are allowed. */
  webhooks: WebhookPolicy;
  /** Finished jobs are deleted (addresses and results) this long after they finished; kept when not given. */
  retentionMs?: number;
  /** How old an account's evidence may be to decide a verdict (docs/evidence.md); 0: none does. */
  evidenceWindowMs: number;
}

/** What `serve` and `worker` both start from. */
export interface ServiceParts {
  /** Every call measured when metrics are on. */
  store: Store;
  /**
   * The engine, watched likewise, its per-host session limit shared through the store with every
   * process on it, with the result cache before it when reuse is on, and the asking account's
   * evidence after it.
   */
  verifier: WatchedVerifier & ServiceVerifier;
  /** When a temporary answer is asked again (the engine's option, kept by the job runner). */
  retryScheduleMs: readonly number[];
  metrics?: Metrics;
  /** The process's own log (the runner's, the cache's), on stderr. */
  log: pino.Logger;
  /**
   * This process as a holder (HolderRegistry.join): of its runner's leases and its sessions' host
   * slots, so that both are taken over at once should it die. Leave it last, after the runner stopped.
   */
  holder: Holder;
}

export async function openServiceParts(
  options: StoreLocation & ServicePolicy & { engine: Partial<EngineOptions>; metrics?: MetricsAt; logLevel: string },
): Promise<ServiceParts> {
  const log = pino({ level: options.logLevel }, process.stderr);
  const metrics = options.metrics ? new Metrics() : undefined;
  const opened = await openStore(options);
  const store = metrics ? instrumentStore(opened, metrics) : opened;
  const { createVerifier, resolveEngineOptions } = await import('../engine/index.js');
  const engineOptions = resolveEngineOptions(options.engine);
  const joined = await store.holders.join();
  const sharing = shareHostSlots(store.hostSlots, { holder: joined.id, standing: joined });
  const engine = createVerifier(engineOptions, { observer: metrics?.smtp, sharedHostSlots: sharing.take, egressBenches: store.egressBenches });
  const reusing = options.reuse
    ? reusingResults(engine, store.resultCache, options.reuse, (error) =>
        log.warn({ err: error }, 'the result cache could not be read or written; asking the mail hosts'),
      )
    : engine;
  const speaking = speakingToApiUsers(reusing);
  // Outside the cache: the account's own evidence is never kept there, and is read over what the cache answers.
  const verifier =
    options.evidenceWindowMs > 0
      ? usingEvidence(speaking, store.evidence, options.evidenceWindowMs, (error) =>
          log.warn({ err: error }, "the account's evidence could not be read; answering with the probe alone"),
        )
      : speaking;
  if (metrics) {
    metrics.watchNetwork(verifier.network);
    metrics.watchQueue(store.work);
    metrics.watchBenches(store.egressBenches);
  }
  const holder: Holder = {
    id: joined.id,
    standing: () => joined.standing(),
    onLapse: (listener) => joined.onLapse(listener),
    leave: async () => {
      sharing.stop();
      await joined.leave();
    },
  };
  return { store, verifier, retryScheduleMs: engineOptions.retryScheduleMs, metrics, log, holder };
}

/**
 * A job runner under the parts' holder, so that its leases are taken over at once should this
 * process die, and beside it the webhook deliverer under the same holder (the rescuer frees the
 * deliveries of gone holders too). Stopping the runner stops both.
 */
export function startRegisteredRunner(
  { store, verifier, retryScheduleMs, metrics, holder }: ServiceParts,
  options: { log: BackgroundLog; leaseMs: number } & ServicePolicy,
): JobRunner {
  const webhooks = startWebhookDeliverer({
    store: store.webhooks,
    holder: holder.id,
    standing: holder,
    policy: options.webhooks,
    onAttempt: metrics && watchWebhooks(metrics.registry, store.webhooks),
    schedule: retrySchedule(process.env),
    log: options.log,
    leaseMs: options.leaseMs,
  });
  const jobs = startJobRunner({
    queue: store.work,
    holder: holder.id,
    standing: holder,
    verifier,
    retryScheduleMs,
    log: options.log,
    leaseMs: options.leaseMs,
    metrics: metrics?.runner,
    savePolicy: { refundUnknown: options.refundUnknown },
    // A job this node completes is announced by this node at once, not at its deliverer's next poll.
    onJobCompleted: webhooks.wake,
  });
  // A job any node created is taken at once, not at this runner's next look (this node's own jobs wake it twice: harmless).
  void store.install.onNewWork(jobs.wake);
  // A job or account any node deleted stops this runner's chunks of it at once, not at its next lease renewal.
  void store.install.onWorkDeleted(jobs.workDeleted);
  return { wake: jobs.wake, workDeleted: jobs.workDeleted, stop: async () => void (await Promise.all([jobs.stop(), webhooks.stop()])) };
}

/**
 * The maintenance of a process on these parts (docs/architecture.md "Maintenance"), under one
 * supervisor: bench expiry always (the engine benches egresses in the store); with a runner, the
 * rescuer and the due waker, which wake it when they freed items, webhook pruning and, with a
 * retention, the deletion of finished jobs and of evidence past it; with the dashboard (`serve`), the deletion of
 * uploads never submitted.
 */
export function startPartsMaintenance(
  { store, metrics }: ServiceParts,
  options: { log: BackgroundLog; runner?: JobRunner; uploadRetentionMs?: number } & ServicePolicy,
): Maintenance {
  const { log, runner } = options;
  const services: MaintenanceService[] = [benchExpirer(store.egressBenches)];
  if (runner) {
    services.push(
      rescuer(store.work, log, (items) => {
        metrics?.runner.leases('taken_over', items);
        runner.wake();
      }),
      dueWaker(store.work, log, runner.wake),
      webhookPruner(store.webhooks, options.webhooks.retentionMs, log),
    );
    if (options.retentionMs !== undefined) {
      services.push(retention('job_retention', (before, limit) => store.jobs.deleteFinishedBefore(before, limit), options.retentionMs, log, 'finished jobs'));
      // The account's evidence holds addresses too: it leaves under the same retention, counted from its import.
      const deleteEvidence = (before: string, limit: number) => store.evidence.deleteEvidenceBefore(before, limit);
      services.push(retention('evidence_retention', deleteEvidence, options.retentionMs, log, 'evidence'));
    }
  }
  if (options.uploadRetentionMs !== undefined) {
    const deleteUploads = (before: string, limit: number) => store.dashboard.deleteUploadsBefore(before, limit);
    services.push(retention('upload_retention', deleteUploads, options.uploadRetentionMs, log, 'uploaded lists never submitted'));
  }
  return startMaintenance(services, { log, metrics: metrics?.maintenance });
}

/** Starts the metrics listener when asked for; tests and scripts read its URL from the line the CLI prints. */
export async function listenForMetrics(metrics: Metrics | undefined, at: MetricsAt | undefined): Promise<MetricsListener | undefined> {
  return metrics && at ? startMetricsListener(metrics, at.host, at.port) : undefined;
}
