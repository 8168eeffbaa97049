import { NOTHING_CHECKED, type VerificationResult, type Verifier } from '../../engine/types.js';
import type { PendingItem, Store } from '../store/store.js';
import { ResultBatcher } from './result-batcher.js';

/** The slice of a pino logger the runner uses (fastify's `app.log` fits). */
export interface JobRunnerLog {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface JobRunnerOptions {
  store: Store;
  verifier: Verifier;
  log: JobRunnerLog;
  /** Results written per transaction. */
  batchSize?: number;
  /** Longest a finished result waits in memory before it is written. */
  flushIntervalMs?: number;
  /** Items handed to the engine at once: large, so it can group them by domain; bounded, so memory is too. */
  claimSize?: number;
  /** How often an idle runner looks for work nobody woke it for (a job created by another instance on the same store). */
  idlePollMs?: number;
  /** Pause after a round whose results could not be written, so a full disk is not hammered. */
  errorBackoffMs?: number;
}

export interface JobRunner {
  /** There may be new work (a job was just created): look now rather than at the next poll. */
  wake(): void;
  /** Claims nothing more and writes the results already in hand; results still in flight are dropped and verified again on the next start. */
  stop(): Promise<void>;
}

/** The verdict stored for an item the engine could not verify at all, so that the job still completes. */
export function engineFailureResult(email: string, error: unknown): VerificationResult {
  const message = error instanceof Error ? error.message : String(error);
  return {
    email,
    result: 'unknown',
    reason: `verification failed inside the service: ${message}`,
    checks: NOTHING_CHECKED,
  };
}

/**
 * Verifies the pending items of unfinished jobs, round after round, one claimed slice per job per
 * round so a huge job does not starve the jobs behind it. Started with the service, it first
 * finds every job a previous run left unfinished. Charging happened at submission, so re-verifying
 * an item whose result was lost costs nothing; the store keeps only an item's first result.
 */
export function startJobRunner(options: JobRunnerOptions): JobRunner {
  const { store, verifier, log } = options;
  const batchSize = options.batchSize ?? 100;
  const flushIntervalMs = options.flushIntervalMs ?? 250;
  const claimSize = options.claimSize ?? 5_000;
  const idlePollMs = options.idlePollMs ?? 5_000;
  const errorBackoffMs = options.errorBackoffMs ?? 1_000;

  let stopped = false;
  let current: ResultBatcher | undefined;
  let writeFailed = false;
  let nudge: (() => void) | undefined;
  /** Set by wake(); a wake that arrives while a round runs means "look again", not "sleep". */
  let wakeRequested = false;
  /** Waits that stop() cuts short: the engine call in flight, if any. */
  const onStop = new Set<() => void>();

  /** Resolves on wake(), stop() or after `ms`, whichever comes first. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      nudge = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => (nudge = undefined));

  /**
   * The engine cannot be cancelled, so on stop() the runner stops waiting for it instead: whatever
   * it still delivers is ignored, and those items are verified again on the next start.
   */
  const unlessStopped = <T>(work: Promise<T>): Promise<T | undefined> =>
    new Promise<T | undefined>((resolve, reject) => {
      if (stopped) return resolve(undefined);
      const cut = () => resolve(undefined);
      onStop.add(cut);
      work.then(resolve, reject).finally(() => onStop.delete(cut));
    });

  async function verifySlice(jobId: string, items: PendingItem[]): Promise<void> {
    const batcher = new ResultBatcher(store, jobId, batchSize, flushIntervalMs, (error) => {
      writeFailed = true;
      log.error({ err: error, jobId }, 'could not write verification results; those items will be verified again');
    });
    current = batcher;
    // Positions still waiting for a result, by address (a list, in case a job holds an address twice).
    const unanswered = new Map<string, number[]>();
    for (const { email, position } of items) {
      const positions = unanswered.get(email);
      if (positions) positions.push(position);
      else unanswered.set(email, [position]);
    }

    const engineRun = verifier.verifyMany(
      items.map((item) => item.email),
      (result) => {
        const position = unanswered.get(result.email)?.shift();
        if (position !== undefined) batcher.add(position, result);
      },
    );
    await unlessStopped(
      engineRun.catch((error: unknown) => {
        log.error({ err: error, jobId }, 'the engine failed on a slice of a job; verifying its remaining items one by one');
      }),
    );
    // Whatever the engine left unanswered is tried alone; if that throws too, it gets an `unknown` verdict.
    for (const [email, positions] of unanswered) {
      while (positions.length > 0 && !stopped) {
        const result = await unlessStopped(verifier.verify(email).catch((error: unknown) => engineFailureResult(email, error)));
        if (result) batcher.add(positions.shift()!, result);
      }
    }
    await batcher.flush();
  }

  /** One pass over the unfinished jobs; true when there was anything to verify. */
  async function round(): Promise<boolean> {
    let worked = false;
    for (const jobId of await store.unfinishedJobIds()) {
      if (stopped) break;
      const items = await store.pendingItems(jobId, claimSize);
      if (items.length === 0) continue;
      worked = true;
      log.info({ jobId, items: items.length }, 'verifying bulk job items');
      await verifySlice(jobId, items);
    }
    return worked;
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      writeFailed = false;
      wakeRequested = false;
      let worked = false;
      try {
        worked = await round();
      } catch (error) {
        writeFailed = true;
        log.error({ err: error }, 'the job runner could not read its work; trying again shortly');
      }
      if (stopped) break;
      if (writeFailed) await pause(errorBackoffMs);
      else if (!worked && !wakeRequested) await pause(idlePollMs);
    }
  }

  const running = loop();
  return {
    wake() {
      wakeRequested = true;
      nudge?.();
    },
    /** Once this resolves the runner never touches the store again, so the store may be closed. */
    async stop() {
      stopped = true;
      const written = current?.close();
      for (const cut of onStop) cut();
      nudge?.();
      await Promise.all([written, running]);
    },
  };
}
