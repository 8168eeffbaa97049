import { BEYOND_FORMAT, NOTHING_CHECKED, type VerificationResult } from '../../engine/types.js';
import type { ServiceVerifier } from '../verifier/result-reuse.js';
import type { HolderStanding } from '../store/model.js';
import type { SavePolicy, WorkChunk, WorkQueue } from '../store/store.js';
import { ResultBatcher } from './result-batcher.js';
import type { BackgroundLog as JobRunnerLog } from '../background/log.js';
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
  /** What writing results decides beyond them (`--refund-unknown`). */
  savePolicy?: SavePolicy;
  log: JobRunnerLog;
  /** How long a claim lasts unless renewed; it is renewed every third of that while worked. */
  leaseMs?: number;
  /** Items per claim: up to this many addresses of one domain of one job. */
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
  inFlight(chunks: number, items: number): void;
}

/** How often a runner looks for leases whose holder is gone (a cheap query over the leased items). */
const RESCUE_EVERY_MS = 1_000;

export interface JobRunner {
  /** There may be new work (a job was just created): look now rather than at the next poll. */
  wake(): void;
  /**
   * Claims nothing more, writes the results already in hand and releases its leases, so other
   * runners take the rest over at once; results still in flight are dropped and verified again.
   */
  stop(): Promise<void>;
}

/** The verdict stored for an item the engine could not verify at all, so that the job still completes. */
export function engineFailureResult(email: string, error: unknown): VerificationResult {
  const message = error instanceof Error ? error.message : String(error);
  return {
    email,
    result: 'unknown',
    reason: `verification failed inside the service: ${message}`,
    reasonCode: 'internal_error',
    checks: NOTHING_CHECKED,
    notEstablished: ['format', ...BEYOND_FORMAT],
  };
}

/**
 * While a chunk of a domain has more than this many addresses being asked, the runner claims no
 * other chunk of that domain: the host's session limit is taken already, and the items are left
 * to other runners. Near its end, the next chunk is claimed, so the host's sessions go straight on.
 * Addresses waiting for their greylist retry are not being asked (they hold no session): a chunk
 * the host greylisted leaves its domain free for the next chunk, whose addresses then wait out
 * the same delay beside it instead of after it.
 */
const DOMAIN_TAIL_ITEMS = 20;
/**
 * Chunks claimed that have no answer yet: they wait for DNS, for the catch-all probe, or for a
 * session slot because the engine is busy. Beyond this many (or beyond maxItemsInFlight) the
 * runner is full: it takes on what its engine can start (its share, when several runners share a
 * store) rather than everything claimable, and claims again as answers come in. A full runner
 * still claims for a user holding less than an even share of it, so that a newcomer's small job
 * does not wait for another user's backlog to drain (the engine's slots are shared fairly by user too).
 */
const MAX_STARTING_CHUNKS = 32;

/** A claimed chunk being worked. */
interface HeldChunk {
  chunk: WorkChunk;
  unanswered: number;
  /** Of those, addresses the engine put aside for their greylist retry. */
  retryingLater: number;
  /** The engine has answered one of its addresses or put one aside: it is not starting any more. */
  started: boolean;
  /** When the store last confirmed the lease (the runner's clock: only differences are used). */
  renewedAt: number;
  /** Set when the lease is no longer ours: the engine stops asking, answers are dropped. */
  lost: boolean;
  readonly cancel: AbortController;
}

/**
 * A streaming runner: it claims chunks of pending items under leases (fairly across users, one
 * domain per chunk, see Store.claimWork) and works many at once, claiming the next while the
 * others run, so no chunk waits for the slowest host of another. Results are written in batches
 * under the chunk's lease; leases are renewed on a timer while worked and released when done.
 * Charging happened at submission, so re-verifying an item whose result was lost costs nothing;
 * the store keeps only an item's first result. Any number of runners may share one store.
 */
export function startJobRunner(options: JobRunnerOptions): JobRunner {
  const { queue, verifier, log, holder, metrics } = options;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_SECONDS * 1_000;
  const chunkSize = options.chunkSize ?? 250;
  const maxItemsInFlight = options.maxItemsInFlight ?? 5_000;
  const idlePollMs = options.idlePollMs ?? 1_000;
  const errorBackoffMs = options.errorBackoffMs ?? 1_000;

  let stopped = false;
  let troubled = false;
  const held = new Map<string, HeldChunk>();
  const chunksRunning = new Set<Promise<void>>();
  let itemsInFlight = 0;
  /** The loop's wait between looks, cut short by wake(), chunks ending and stop(). */
  const sleep = new WakeableSleep();
  /** Waits that stop() cuts short: the engine calls in flight. */
  const onStop = new Set<() => void>();

  const batcher = new ResultBatcher(queue, {
    batchSize: options.batchSize ?? 100,
    flushIntervalMs: options.flushIntervalMs ?? 250,
    maxKept: options.maxBufferedResults ?? 20_000,
    retryMs: errorBackoffMs,
    policy: options.savePolicy,
    onJobCompleted: options.onJobCompleted,
    onWriteError: (error, kept) => {
      troubled = true;
      log.error({ err: error, kept }, kept ? 'could not write verification results; keeping them to write when the store is back' : 'could not write verification results; those items will be verified again');
    },
  });

  const reportInFlight = () => metrics?.inFlight(held.size, itemsInFlight);

  /** The lease is no longer ours: stop the engine's questions for it and drop its answers. */
  function lose(entry: HeldChunk, why: string): void {
    if (entry.lost || entry.unanswered === 0) return;
    entry.lost = true;
    entry.cancel.abort();
    metrics?.leases('lost', 1);
    log.info({ jobId: entry.chunk.jobId, domain: entry.chunk.domain, unanswered: entry.unanswered }, `stopped a chunk: ${why}`);
  }

  // Others may soon take over every lease of a holder that lost its standing: stop asking for them all now.
  options.standing?.onLapse(() => {
    for (const entry of held.values()) lose(entry, 'this process could not show the store in time that it is alive');
  });

  const renewEveryMs = leaseMs / 3;
  /** One renewal at a time: a slow store never gets a second one piled on the first. */
  let renewing = false;
  async function renew(): Promise<void> {
    // A chunk already stopped is not kept from others any longer than its lease.
    const leases = [...held].filter(([, entry]) => !entry.lost).map(([lease]) => lease);
    const askedAt = Date.now();
    try {
      const kept = new Set(await queue.renewLeases(leases, leaseMs));
      metrics?.leases('renewed', kept.size);
      for (const lease of leases) {
        const entry = held.get(lease);
        if (!entry) continue;
        if (kept.has(lease)) entry.renewedAt = askedAt;
        else lose(entry, 'its lease was taken over by another runner');
      }
    } catch (error) {
      log.error({ err: error }, 'could not renew the leases of the work in hand');
      // Without the store's word, a lease that runs out before the next renewal may be someone else's
      // by then: stop now rather than go on asking for items another runner may hold.
      for (const entry of held.values()) {
        if (askedAt + 2 * renewEveryMs - entry.renewedAt > leaseMs) lose(entry, 'its lease could not be renewed before it ran out');
      }
    }
  }
  const renewal = setInterval(() => {
    if (renewing || held.size === 0) return;
    renewing = true;
    void renew().finally(() => (renewing = false));
  }, renewEveryMs);
  let lastRescue = 0;


  /**
   * The engine cannot be cancelled, so on stop() the runner stops waiting for it instead: whatever
   * it still delivers is ignored, and those items are verified again by whoever claims them next.
   */
  const unlessStopped = <T>(work: Promise<T>): Promise<T | undefined> =>
    new Promise<T | undefined>((resolve, reject) => {
      if (stopped) return resolve(undefined);
      const cut = () => resolve(undefined);
      onStop.add(cut);
      work.then(resolve, reject).finally(() => onStop.delete(cut));
    });

  /** Addresses of the chunk the engine is asking now (not answered, not waiting for a retry). */
  const asking = (entry: HeldChunk) => entry.unanswered - entry.retryingLater;
  const starting = () => [...held.values()].filter((entry) => !entry.started).length;
  /** Domains this runner is busy with: it leaves their other chunks to other runners for now. */
  const busyDomains = () => [...new Set([...held.values()].filter((entry) => asking(entry) > DOMAIN_TAIL_ITEMS).map((entry) => entry.chunk.domain))];
  const full = () => itemsInFlight >= maxItemsInFlight || starting() >= MAX_STARTING_CHUNKS;
  /**
   * When full, the users holding their share of the runner or more are not claimed for: of its
   * starting chunks or of its items in flight, split evenly between the users with work in it (see
   * MAX_STARTING_CHUNKS). A user's chunks waiting for a session at busy hosts then fill that user's
   * share, never another's: a small job's chunks at idle hosts are all claimed at once, not one each
   * time one of the large job's chunks gets its first answer.
   */
  function usersToSkip(): number[] {
    if (!full()) return [];
    const byUser = new Map<number, { starting: number; items: number }>();
    for (const entry of held.values()) {
      const user = byUser.get(entry.chunk.userId) ?? { starting: 0, items: 0 };
      if (!entry.started) user.starting += 1;
      user.items += entry.chunk.items.length;
      byUser.set(entry.chunk.userId, user);
    }
    const [startingShare, itemsShare] = [MAX_STARTING_CHUNKS / byUser.size, maxItemsInFlight / byUser.size];
    return [...byUser].filter(([, user]) => user.starting >= startingShare || user.items >= itemsShare).map(([userId]) => userId);
  }

  /** The chunk's first answer (the engine has room for more) and its tail (its domain is free again) are moments to claim. */
  function progressed(entry: HeldChunk): void {
    const first = !entry.started;
    entry.started = true;
    if (first || asking(entry) === DOMAIN_TAIL_ITEMS) sleep.wake();
  }

  async function verifyChunk(entry: HeldChunk): Promise<void> {
    const { lease, jobId, items } = entry.chunk;
    // Whose work it is and whether it may reuse recent verdicts (the result cache, when there is one).
    const asker = { owner: entry.chunk.userId, fresh: entry.chunk.fresh };
    // Positions still waiting for a result, by address (a list, in case a job holds an address twice).
    const unanswered = new Map<string, number[]>();
    for (const { email, position } of items) {
      const positions = unanswered.get(email);
      if (positions) positions.push(position);
      else unanswered.set(email, [position]);
    }
    /** Addresses put aside for their greylist retry, by how many of their positions are. */
    const retrying = new Map<string, number>();
    const answer = (position: number, result: VerificationResult) => {
      if (entry.lost) return;
      batcher.add({ lease, jobId, position, result });
      entry.unanswered -= 1;
      const waited = retrying.get(result.email) ?? 0;
      if (waited > 0) {
        retrying.set(result.email, waited - 1);
        entry.retryingLater -= 1;
      }
      progressed(entry);
    };
    const retryLater = (email: string) => {
      if (entry.lost || !unanswered.has(email)) return;
      retrying.set(email, (retrying.get(email) ?? 0) + 1);
      entry.retryingLater += 1;
      progressed(entry);
    };

    const engineRun = verifier.verifyMany(
      items.map((item) => item.email),
      (result) => {
        if (stopped) return;
        const position = unanswered.get(result.email)?.shift();
        if (position !== undefined) answer(position, result);
      },
      { signal: entry.cancel.signal, share: String(entry.chunk.userId), onRetryLater: retryLater, ...asker },
    );
    await unlessStopped(
      engineRun.catch((error: unknown) => {
        log.error({ err: error, jobId }, 'the engine failed on a chunk of a job; verifying its remaining items one by one');
      }),
    );
    // Whatever the engine left unanswered is tried alone; if that throws too, it gets an `unknown` verdict.
    for (const [email, positions] of unanswered) {
      while (positions.length > 0 && !stopped && !entry.lost) {
        const result = await unlessStopped(verifier.verify(email, asker).catch((error: unknown) => engineFailureResult(email, error)));
        if (result) answer(positions.shift()!, result);
      }
    }
  }

  /** Works a chunk to its end, then writes its results and gives back whatever of it is left unanswered. */
  async function work(chunk: WorkChunk): Promise<void> {
    const entry: HeldChunk = { chunk, unanswered: chunk.items.length, retryingLater: 0, started: false, renewedAt: Date.now(), lost: false, cancel: new AbortController() };
    held.set(chunk.lease, entry);
    itemsInFlight += chunk.items.length;
    reportInFlight();
    try {
      await verifyChunk(entry);
    } catch (error) {
      troubled = true;
      log.error({ err: error, jobId: chunk.jobId }, 'a chunk of a job failed; its items will be verified again');
    } finally {
      // Its own results written first: once released, its items are anyone's to claim.
      await batcher.flush(chunk.lease);
      await queue.releaseLeases([chunk.lease]).catch((error: unknown) => {
        unreleased.add(chunk.lease);
        log.error({ err: error, jobId: chunk.jobId }, 'could not release a lease; trying again once the store answers');
      });
      held.delete(chunk.lease);
      itemsInFlight -= chunk.items.length;
      reportInFlight();
      sleep.wake();
    }
  }

  /**
   * Leases whose release failed (the store away, as when this holder lost its standing): released
   * once the store answers and their results kept meanwhile are written, rather than left to run
   * out while this holder, alive, keeps them from everyone.
   */
  const unreleased = new Set<string>();
  async function releaseLeft(): Promise<void> {
    const ready = [...unreleased].filter((lease) => !batcher.holds(lease));
    if (ready.length === 0) return;
    await queue.releaseLeases(ready);
    for (const lease of ready) unreleased.delete(lease);
  }

  /** Claims chunks while there is room and work; true when the store answered. */
  async function claim(): Promise<boolean> {
    try {
      await releaseLeft();
      if (Date.now() - lastRescue >= RESCUE_EVERY_MS) {
        lastRescue = Date.now();
        const freed = await queue.rescue();
        if (freed > 0) {
          metrics?.leases('taken_over', freed);
          log.info({ items: freed }, 'took over the leases of a runner that is gone');
        }
      }
      while (!stopped && options.standing?.standing() !== false) {
        // Chunks the engine answers from its caches alone end within microtasks: without a turn of
        // the event loop between claims, such a run would keep requests (and timers) waiting.
        await new Promise((resolve) => setImmediate(resolve));
        const skipUsers = usersToSkip();
        if (full() && skipUsers.length === 0) break;
        const chunk = await queue.claimWork({ maxItems: chunkSize, leaseMs, skipDomains: busyDomains(), skipUsers, onlyJobs: options.onlyJobs, holder });
        if (!chunk) break;
        metrics?.leases('claimed', 1);
        if (stopped) {
          await queue.releaseLeases([chunk.lease]);
          break;
        }
        log.info({ jobId: chunk.jobId, domain: chunk.domain, items: chunk.items.length }, 'verifying a chunk of a bulk job');
        const running = work(chunk).finally(() => chunksRunning.delete(running));
        chunksRunning.add(running);
      }
      return true;
    } catch (error) {
      log.error({ err: error }, 'the job runner could not claim work; trying again shortly');
      return false;
    }
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      troubled = !(await claim()) || troubled;
      if (stopped) break;
      if (troubled) {
        troubled = false;
        await sleep.sleep(errorBackoffMs);
      } else await sleep.sleep(idlePollMs);
    }
  }

  const running = loop();
  return {
    wake: () => sleep.wake(),
    /** Once this resolves the runner never touches the store again, so the store may be closed. */
    async stop() {
      stopped = true;
      clearInterval(renewal);
      // The engine asks nothing more for these chunks (their items are verified again by whoever claims them).
      for (const entry of held.values()) entry.cancel.abort();
      for (const cut of onStop) cut();
      sleep.wake();
      await running;
      await Promise.all(chunksRunning);
      batcher.discard();
    },
  };
}
