import type { ServiceVerifier } from '../verifier/result-reuse.js';
import type { HolderStanding } from '../store/model.js';
import type { SavePolicy, WorkQueue } from '../store/store.js';
import { ChunkWorker } from './chunk-worker.js';
import { HeldChunks } from './held-chunks.js';
import { LeaseKeeper } from './lease-keeper.js';
import { ResultBatcher } from './result-batcher.js';
import type { BackgroundLog } from '../background/log.js';
import { WakeableSleep } from '../background/wakeable-sleep.js';

/** docs/architecture.md "The service inside": `--lease-seconds` / MAILVERIFY_LEASE_SECONDS default. */
export const DEFAULT_LEASE_SECONDS = 60;

export interface JobRunnerOptions {
  /** Where chunks of bulk work are claimed and their results written. */
  queue: WorkQueue;
  /** This runner's holder id (HolderRegistry.join), written on its leases so that they are taken over at once if it dies. */
  holder?: string;
  /** The holder's standing: while lost, the runner works none of its chunks and claims none (others may take them over). */
  standing?: HolderStanding;
  /** Where the runner reports its leases and work in flight (the metrics listener), if anywhere. */
  metrics?: RunnerMetrics;
  /** Most finished results kept in memory while the store cannot take them (the rest are verified again later). */
  maxBufferedResults?: number;
  verifier: ServiceVerifier;
  /** When a temporary answer is asked again (EngineOptions.retryScheduleMs): the address waits in the store until then. */
  retryScheduleMs: readonly number[];
  /** What writing results decides beyond them (`--refund-unknown`). */
  savePolicy?: SavePolicy;
  log: BackgroundLog;
  /** How long a claim lasts unless renewed; it is renewed every third of that while worked. */
  leaseMs?: number;
  /**
   * Items per claim: up to this many addresses of one domain of one job. Small enough that a new
   * large job's first claims, most of whose addresses wait for sessions at a few busy hosts, lease
   * little ahead of the engine (on SQLite every item leased is the serving thread's time), and
   * large enough that a host's sessions (4 × 5 recipients) have more waiting than they ask at once.
   */
  chunkSize?: number;
  /** Claimed items worked at once: enough to keep the engine's sessions busy across many domains. */
  maxItemsInFlight?: number;
  /** Results written per transaction. */
  batchSize?: number;
  /** Longest a finished result waits in memory before it is written. */
  flushIntervalMs?: number;
  /** How often a runner with room for work looks for some nobody woke it for (a job created through another process). */
  idlePollMs?: number;
  /** Pause after results could not be written or work not claimed, so a full disk or a lost database is not hammered. */
  errorBackoffMs?: number;
  /** Work only these jobs (`bulk submit --local`: the jobs it created), not every job in the store. */
  onlyJobs?: readonly string[];
  /** Told when a batch of results this runner wrote completed a job, whose webhook event this node can then send at once. */
  onJobCompleted?: () => void;
}

/** What a runner reports as it goes (see metrics/). */
export interface RunnerMetrics {
  leases(event: 'claimed' | 'renewed' | 'lost' | 'taken_over', count: number): void;
  /** An address's answer after a temporary one: asked again later, final on a later try, or temporary after the last. */
  retries(outcome: 'waiting' | 'settled' | 'exhausted'): void;
  inFlight(chunks: number, items: number): void;
}

export interface JobRunner {
  /** There may be new work (a job was just created): look now rather than at the next poll. */
  wake(): void;
  /** Jobs may have been deleted: ask the store now which leases still hold anything, and stop the chunks of those that do not. */
  workDeleted(): void;
  /**
   * Claims nothing more, writes the results already in hand and releases its leases, so other
   * runners take the rest over at once; results still in flight are dropped and verified again.
   */
  stop(): Promise<void>;
}

/**
 * A streaming runner: it claims chunks of pending items under leases (fairly across users, one
 * domain per chunk, see Store.claimWork) and works many at once, claiming the next while the
 * others run, so no chunk waits for the slowest host of another. Results are written in batches
 * under the chunk's lease; leases are renewed on a timer while worked and released when done.
 * Charging happened at submission, so re-verifying an item whose result was lost costs nothing;
 * the store keeps only an item's first result. Any number of runners may share one store.
 *
 * The loop here only claims; its parts do the rest: the chunk worker works each chunk to its end
 * (chunk-worker.ts), the lease keeper renews and gives back its leases (lease-keeper.ts), and
 * HeldChunks keeps the account of the work in hand that says whether the runner has room for more
 * (held-chunks.ts). What makes items claimable again (the leases of holders that are gone, items
 * due again) is maintenance (src/server/maintenance), which wakes the runner when it freed some.
 */
export function startJobRunner(options: JobRunnerOptions): JobRunner {
  const runner = new ClaimingLoop(options);
  return {
    wake: () => runner.wake(),
    workDeleted: () => runner.workDeleted(),
    /** Once this resolves the runner never touches the store again, so the store may be closed. */
    stop: () => runner.stop(),
  };
}

/** The runner itself: it wires its parts together and claims, on every turn of its loop, while there is room and work. */
class ClaimingLoop {
  private readonly leaseMs: number;
  private readonly chunkSize: number;
  private readonly idlePollMs: number;
  private readonly errorBackoffMs: number;
  private stopped = false;
  /** Results could not be written or a chunk failed: the loop waits errorBackoffMs before it looks again. */
  private troubled = false;
  /** The loop's wait between looks, cut short by wake(), chunks ending and stop(). */
  private readonly sleep = new WakeableSleep();
  private readonly held: HeldChunks;
  private readonly batcher: ResultBatcher;
  private readonly leases: LeaseKeeper;
  private readonly worker: ChunkWorker;
  private readonly running: Promise<void>;

  constructor(private readonly options: JobRunnerOptions) {
    const { queue, verifier, log, metrics } = options;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_SECONDS * 1_000;
    this.chunkSize = options.chunkSize ?? 50;
    this.idlePollMs = options.idlePollMs ?? 1_000;
    this.errorBackoffMs = options.errorBackoffMs ?? 1_000;
    this.held = new HeldChunks(options.maxItemsInFlight ?? 5_000, metrics);
    this.batcher = new ResultBatcher(queue, {
      batchSize: options.batchSize ?? 100,
      flushIntervalMs: options.flushIntervalMs ?? 250,
      maxKept: options.maxBufferedResults ?? 20_000,
      retryMs: this.errorBackoffMs,
      policy: options.savePolicy,
      onJobCompleted: options.onJobCompleted,
      onWriteError: (error, kept) => {
        this.troubled = true;
        log.error(
          { err: error, kept },
          kept
            ? 'could not write verification results; keeping them to write when the store is back'
            : 'could not write verification results; those items will be verified again',
        );
      },
    });
    this.leases = new LeaseKeeper({ queue, held: this.held, batcher: this.batcher, leaseMs: this.leaseMs, standing: options.standing, metrics, log });
    const onRoom = () => this.sleep.wake();
    const onTrouble = () => (this.troubled = true);
    this.worker = new ChunkWorker({
      verifier,
      retryScheduleMs: options.retryScheduleMs,
      metrics,
      held: this.held,
      batcher: this.batcher,
      leases: this.leases,
      log,
      onRoom,
      onTrouble,
    });
    this.running = this.loop();
  }

  wake(): void {
    this.sleep.wake();
  }

  workDeleted(): void {
    this.leases.renewNow();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.leases.stop();
    this.worker.stop();
    this.sleep.wake();
    await this.running;
    await this.worker.settled();
    this.batcher.discard();
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      this.troubled = !(await this.claim()) || this.troubled;
      if (this.stopped) break;
      if (this.troubled) {
        this.troubled = false;
        await this.sleep.sleep(this.errorBackoffMs);
      } else await this.sleep.sleep(this.idlePollMs);
    }
  }

  /** Claims chunks while there is room and work; true when the store answered. */
  private async claim(): Promise<boolean> {
    const { queue, standing, onlyJobs, holder, metrics, log } = this.options;
    try {
      await this.leases.releaseLeft();
      while (!this.stopped && standing?.standing() !== false) {
        // Chunks the engine answers from its caches alone end within microtasks: without a turn of
        // the event loop between claims, such a run would keep requests (and timers) waiting.
        await new Promise((resolve) => setImmediate(resolve));
        const skipUsers = this.held.usersToSkip();
        if (this.held.full() && skipUsers.length === 0) break;
        const chunk = await queue.claimWork({
          maxItems: this.chunkSize,
          leaseMs: this.leaseMs,
          skipDomains: this.held.busyDomains(),
          skipUsers,
          onlyJobs,
          holder,
        });
        if (!chunk) break;
        metrics?.leases('claimed', 1);
        if (this.stopped) {
          await queue.releaseLeases([chunk.lease]);
          break;
        }
        log.info({ jobId: chunk.jobId, domain: chunk.domain, items: chunk.items.length }, 'verifying a chunk of a bulk job');
        this.worker.start(chunk);
      }
      return true;
    } catch (error) {
      log.error({ err: error }, 'the job runner could not claim work; trying again shortly');
      return false;
    }
  }
}
