import { BEYOND_FORMAT, NOTHING_CHECKED, type VerificationResult } from '../../engine/core/types.js';
import { isTemporary, nextAttemptAt } from '../../engine/core/retry-schedule.js';
import { sandboxResult } from '../../engine/sandbox.js';
import type { ServiceVerifier } from '../verifier/result-reuse.js';
import type { CacheEntry, PendingItem, WorkChunk } from '../store/store.js';
import { AddressPositions } from './address-positions.js';
import type { HeldChunk, HeldChunks } from './held-chunks.js';
import type { LeaseKeeper } from './lease-keeper.js';
import type { ResultBatcher } from './result-batcher.js';
import type { BackgroundLog } from '../background/log.js';
import type { RunnerMetrics } from './runner.js';

export interface ChunkWorkerOptions {
  verifier: ServiceVerifier;
  /** When a temporary answer is asked again (EngineOptions.retryScheduleMs); empty: never. */
  retryScheduleMs: readonly number[];
  metrics?: RunnerMetrics;
  held: HeldChunks;
  batcher: ResultBatcher;
  leases: LeaseKeeper;
  log: BackgroundLog;
  /** A moment to claim: a chunk got its first answer, reached its tail, or ended. */
  onRoom(): void;
  /** A chunk failed: the loop pauses before it claims again. */
  onTrouble(): void;
}

/** The verdict stored for an item the engine could not verify at all, so that the job still completes. */
function engineFailureResult(email: string, error: unknown): VerificationResult {
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
 * The answer as the item keeps it: final, or temporary and due again on the retry schedule
 * (docs/architecture.md "Settling later"), with `nextAttemptAt` in the result so that whoever
 * reads the job's results meanwhile sees when. The spread comes from the address, so two runners
 * would pick the same time for it.
 */
function scheduled(
  item: PendingItem,
  result: VerificationResult,
  { schedule, settleBy, metrics }: { schedule: readonly number[]; settleBy: number | null; metrics?: RunnerMetrics },
): { result: VerificationResult; dueAt?: number } {
  const temporary = isTemporary(result);
  const dueAt = temporary ? nextAttemptAt(schedule, item, Date.now(), settleBy, spreadOf(item.email)) : null;
  if (dueAt !== null) metrics?.retries('waiting');
  else if (item.attempts > 0) metrics?.retries(temporary ? 'exhausted' : 'settled');
  return dueAt === null ? { result } : { result: { ...result, nextAttemptAt: new Date(dueAt).toISOString() }, dueAt };
}

/** A number in [0, 1) of the address's own (FNV-1a): the same every time it is asked. */
function spreadOf(email: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < email.length; index += 1) hash = Math.imul(hash ^ email.charCodeAt(index), 0x01000193);
  return (hash >>> 0) / 2 ** 32;
}

/**
 * Works the chunks the loop claims, many at once: asks the engine for their addresses, hands each
 * answer to the batcher under the chunk's lease, and at a chunk's end writes its results and gives
 * its lease back. Apart from the loop so that a chunk's life, from claimed to released, reads in one place.
 */
export class ChunkWorker {
  private stopped = false;
  private readonly running = new Set<Promise<void>>();
  /** Waits that stop() cuts short: the engine calls in flight. */
  private readonly onStop = new Set<() => void>();

  constructor(private readonly options: ChunkWorkerOptions) {}

  /** Starts working a chunk just claimed, beside the others. */
  start(chunk: WorkChunk): void {
    const running = this.work(chunk).finally(() => this.running.delete(running));
    this.running.add(running);
  }

  /** The engine asks nothing more for the chunks in hand (their items are verified again by whoever claims them). */
  stop(): void {
    this.stopped = true;
    for (const entry of this.options.held.values()) entry.cancel.abort();
    for (const cut of this.onStop) cut();
  }

  /** Resolves once every chunk started has ended. */
  async settled(): Promise<void> {
    await Promise.all(this.running);
  }

  /** Works a chunk to its end, then writes its results and gives back whatever of it is left unanswered. */
  private async work(chunk: WorkChunk): Promise<void> {
    const { held, batcher, leases, log } = this.options;
    const entry = held.hold(chunk);
    try {
      if (chunk.sandbox) this.answerFromSandbox(entry);
      else await this.verify(entry);
    } catch (error) {
      this.options.onTrouble();
      log.error({ err: error, jobId: chunk.jobId }, 'a chunk of a job failed; its items will be verified again');
    } finally {
      // Its own results written first: once released, its items are anyone's to claim.
      await batcher.flush(chunk.lease);
      await leases.release(chunk);
      held.drop(chunk);
      this.options.onRoom();
    }
  }

  /**
   * A sandbox job's chunk (docs/api.md "Sandbox"): every item answered by the engine's sandbox from
   * its address and its tries so far, no server asked and no verdict kept in the result cache. Its
   * temporary answers (`greylisted@`) wait on the retry schedule like any other.
   */
  private answerFromSandbox(entry: HeldChunk): void {
    const { batcher, held, retryScheduleMs, metrics } = this.options;
    const { lease, jobId, items, settleBy } = entry.chunk;
    for (const item of items) {
      const answer = scheduled(item, sandboxResult(item.email, item.attempts), { schedule: retryScheduleMs, settleBy, metrics });
      batcher.add({ lease, jobId, position: item.position, ...answer });
      entry.unanswered -= 1;
    }
    if (held.progressed(entry)) this.options.onRoom();
  }

  private async verify(entry: HeldChunk): Promise<void> {
    const { verifier, batcher, held, log, retryScheduleMs, metrics } = this.options;
    const { lease, jobId, items, settleBy } = entry.chunk;
    // Verdicts to keep in the result cache, by address, until their results go to the batcher with them.
    const toKeep = new Map<string, CacheEntry>();
    // Whose work it is, whether it may reuse recent verdicts (the result cache, when there is one),
    // and that the verdicts it finds are kept with its results, under the lease.
    const asker = { owner: entry.chunk.userId, fresh: entry.chunk.fresh, keep: (kept: CacheEntry) => toKeep.set(kept.result.email, kept) };
    const positions = new AddressPositions(items);
    const progressed = () => {
      if (held.progressed(entry)) this.options.onRoom();
    };
    const answer = (item: PendingItem, result: VerificationResult) => {
      const keep = toKeep.get(result.email);
      toKeep.delete(result.email);
      if (entry.lost) return;
      batcher.add({ lease, jobId, position: item.position, keep, ...scheduled(item, result, { schedule: retryScheduleMs, settleBy, metrics }) });
      entry.unanswered -= 1;
      progressed();
    };

    const engineRun = verifier.verifyMany(
      items.map((item) => item.email),
      (result) => {
        if (this.stopped) return;
        const item = positions.take(result.email);
        if (item !== undefined) answer(item, result);
      },
      { signal: entry.cancel.signal, share: String(entry.chunk.userId), ...asker },
    );
    await this.unlessStopped(
      engineRun.catch((error: unknown) => {
        log.error({ err: error, jobId }, 'the engine failed on a chunk of a job; verifying its remaining items one by one');
      }),
    );
    // Whatever the engine left unanswered is tried alone; if that throws too, it gets an `unknown` verdict.
    for (const email of positions.addresses()) {
      while (positions.waits(email) && !this.stopped && !entry.lost) {
        const result = await this.unlessStopped(verifier.verify(email, asker).catch((error: unknown) => engineFailureResult(email, error)));
        if (result) answer(positions.take(email)!, result);
      }
    }
  }

  /**
   * The engine cannot be cancelled, so on stop() the worker stops waiting for it instead: whatever
   * it still delivers is ignored, and those items are verified again by whoever claims them next.
   */
  private unlessStopped<T>(work: Promise<T>): Promise<T | undefined> {
    return new Promise<T | undefined>((resolve, reject) => {
      if (this.stopped) return resolve(undefined);
      const cut = () => resolve(undefined);
      this.onStop.add(cut);
      work.then(resolve, reject).finally(() => this.onStop.delete(cut));
    });
  }
}
