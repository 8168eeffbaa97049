import type { SharedHostSlots } from '../../engine/core/types.js';
import { ALWAYS_STANDING, type HolderStanding } from '../store/model.js';
import type { HostSlotStore } from '../store/store.js';

/**
 * How long a slot lasts unless renewed: the longest a holder alive but stuck (its event loop
 * blocked) keeps a host's slot from others. A holder that is gone loses its slots at once.
 */
const SLOT_TTL_MS = 60_000;
const RENEW_EVERY_MS = SLOT_TTL_MS / 3;
/** Pause before asking again for a full host: short for an answer someone waits for, growing for bulk work. */
const INTERACTIVE_POLL_MS = 25;
const BULK_POLL_MS = { first: 50, max: 200 };
const RELEASE_AGAIN_MS = 1_000;

export interface HostSlotSharing {
  /** The engine's hook (EngineHooks.sharedHostSlots). */
  take: SharedHostSlots;
  /** Stops renewing, and ends takes still waiting (they throw); slots still held are freed when this holder is gone. */
  stop(): void;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * The per-host session limit of every process on one store (docs/architecture.md "Politeness
 * across processes"), as the engine asks for it: slots of an egress at each host, as many as the
 * engine's limit there (its own, or the provider rule's), held by `holder`, renewed while held. A
 * full host is asked again after a pause with jitter, so waiting processes do not ask in step. A store that does not answer is asked again the same way: a
 * session waits rather than open beyond the limit.
 */
export function shareHostSlots(store: HostSlotStore, { holder, standing = ALWAYS_STANDING }: { holder: string; standing?: HolderStanding }): HostSlotSharing {
  // Renewed by id, not by holder: a slot whose release failed, or whose take committed but whose
  // answer was lost, is no one's to renew and runs out with its lease.
  const held = new Set<string>();
  // Slots whose release failed (the store away): released again every second until it answers,
  // rather than left to run out while this holder, alive, keeps the host's sessions from everyone.
  const unreleased = new Set<string>();
  const release = async (id: string) => {
    await store.release(id).then(
      () => unreleased.delete(id),
      () => unreleased.add(id),
    );
  };
  const releaseLeft = setInterval(() => {
    for (const id of unreleased) void release(id);
  }, RELEASE_AGAIN_MS).unref();
  let stopped = false;
  // A failed renewal is tried again at the next tick, well before the slots run out.
  const renewal = setInterval(() => {
    if (held.size > 0) void store.renew([...held], SLOT_TTL_MS).catch(() => undefined);
  }, RENEW_EVERY_MS).unref();

  async function take(host: string, limit: number, priority: 'interactive' | 'bulk', egress: string): Promise<() => Promise<void>> {
    for (let wait = BULK_POLL_MS.first; !stopped; wait = Math.min(2 * wait, BULK_POLL_MS.max)) {
      // A holder without its standing takes no slot: others may soon take over the ones it holds.
      const id = standing.standing() ? await store.take({ egress, host, limit, holder, ttlMs: SLOT_TTL_MS, priority }).catch(() => undefined) : undefined;
      if (id !== undefined) {
        held.add(id);
        return async () => {
          held.delete(id);
          await release(id);
        };
      }
      await pause(priority === 'interactive' ? INTERACTIVE_POLL_MS : wait * (0.5 + Math.random()));
    }
    throw new Error('the service is stopping: no more SMTP sessions');
  }

  return {
    take,
    stop: () => {
      stopped = true;
      clearInterval(renewal);
      clearInterval(releaseLeft);
    },
  };
}
