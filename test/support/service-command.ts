import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';

/** What `serve` and `worker` listen to on the process while they run, and must leave as they found it. */
const PROCESS_EVENTS = ['SIGINT', 'SIGTERM', 'unhandledRejection'] as const;
/** How long a service command may take to say it is up. */
const READY_BOUND_MS = 20_000;
/** How long a stop may take, from the signal to `run` returning. */
const STOP_BOUND_MS = 5_000;

/** How many listeners the process has for each of PROCESS_EVENTS. */
export function processListeners(): Record<string, number> {
  return Object.fromEntries(PROCESS_EVENTS.map((name) => [name, process.listenerCount(name)]));
}

/**
 * A `serve` or `worker` `run` in this process, until stopped: waits for `ready` on its stderr, calls
 * `whileUp` with the match, then sends SIGTERM the way the command hears it (the process's signal
 * event, with the signal's name) and waits for `run` to return, within STOP_BOUND_MS. Returns
 * everything it wrote on stderr.
 */
export async function runUntilStopped(
  running: Promise<void>,
  stderr: () => string,
  ready: RegExp,
  whileUp: (match: RegExpExecArray) => Promise<void> = async () => undefined,
): Promise<string> {
  let ended = false;
  const settled = running.finally(() => (ended = true));
  const stop = async () => {
    const signalledAt = Date.now();
    process.emit('SIGTERM', 'SIGTERM');
    await settled;
    return Date.now() - signalledAt;
  };
  let match: RegExpExecArray | null;
  for (const startedAt = Date.now(); (match = ready.exec(stderr())) === null; await sleep(20)) {
    if (ended) await settled.then(() => Promise.reject(new Error(`run returned before it was ready: ${stderr()}`)));
    if (Date.now() - startedAt > READY_BOUND_MS) {
      await stop().catch(() => undefined);
      throw new Error(`not ready within ${READY_BOUND_MS} ms: ${stderr()}`);
    }
  }
  try {
    await whileUp(match);
  } finally {
    expect(await stop()).toBeLessThan(STOP_BOUND_MS);
  }
  return stderr();
}
