import type { SharedHostSlots } from '../../engine/core/types.js';
import { ALWAYS_STANDING, type HolderStanding } from '../store/model.js';
import { HOST_SLOT_WAIT_MS } from '../store/flows/host-slots.js';
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
/**
 * How long a slot a session freed waits in this process for its next session at the same egress
 * and host before it goes back to the store. The engine starts a host's next session as the last
 * one ends, so handing the slot on costs nothing, where giving it back and taking it again cost
 * eight statements: with short sessions, most of a worker's statements.
 */
const HAND_ON_WITHIN_MS = 100;
/**
 * How long one take of the store's is handed on from session to session: then the slot goes back,
 * so that other processes at the same egress and host, and interactive takes (which keep bulk takes
 * away for HOST_SLOT_WAIT_MS, this long), get their turn as before.
 */
const HAND_ON_FOR_MS = HOST_SLOT_WAIT_MS;

export interface HostSlotSharing {
  /** The engine's hook (EngineHooks.sharedHostSlots). */
  take: SharedHostSlots;
  /** Stops renewing, gives the spare slots back and ends takes still waiting (they throw); slots still held are freed when this holder is gone. */
  stop(): void;
}

/** A slot a session freed, kept for the next session at its egress and host until `timer` gives it back. */
interface SpareSlot {
  id: string;
  takenAt: number;
  timer: NodeJS.Timeout;
}

/** Slots freed by a session and not yet given back, by egress and host: the next session there takes one. */
class SpareSlots {
  private readonly byKey = new Map<string, SpareSlot[]>();

  constructor(private readonly giveBack: (id: string) => void) {}

  keep(key: string, id: string, takenAt: number): void {
    const slot: SpareSlot = { id, takenAt, timer: setTimeout(() => this.giveBackOne(key, slot), HAND_ON_WITHIN_MS).unref() };
    this.byKey.set(key, [...(this.byKey.get(key) ?? []), slot]);
  }

  take(key: string): SpareSlot | undefined {
    const slot = this.byKey.get(key)?.[0];
    if (slot) this.remove(key, slot);
    return slot;
  }

  giveAllBack(): void {
    for (const [key, slots] of this.byKey) for (const slot of [...slots]) this.giveBackOne(key, slot);
  }

  private giveBackOne(key: string, slot: SpareSlot): void {
    if (this.remove(key, slot)) this.giveBack(slot.id);
  }

  /** Forgets the slot and stops its timer; false when it was not kept (taken meanwhile). */
  private remove(key: string, slot: SpareSlot): boolean {
    clearTimeout(slot.timer);
    const slots = this.byKey.get(key) ?? [];
    const at = slots.indexOf(slot);
    if (at < 0) return false;
    slots.splice(at, 1);
    if (slots.length === 0) this.byKey.delete(key);
    return true;
  }
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

  const giveBack = (id: string) => {
    held.delete(id);
    return release(id);
  };
  const spare = new SpareSlots((id) => void giveBack(id));
  /** What ends a session's hold on slot `id`, taken from the store at `takenAt`: handed on while young, else given back. */
  const releaser = (key: string, id: string, takenAt: number) => async () => {
    if (stopped || Date.now() - takenAt >= HAND_ON_FOR_MS) return giveBack(id);
    spare.keep(key, id, takenAt);
  };

  async function take(host: string, limit: number, priority: 'interactive' | 'bulk', egress: string): Promise<() => Promise<void>> {
    const key = `${egress} ${host}`;
    for (let wait = BULK_POLL_MS.first; !stopped; wait = Math.min(2 * wait, BULK_POLL_MS.max)) {
      // A holder without its standing takes no slot: others may soon take over the ones it holds.
      if (standing.standing()) {
        const handedOn = spare.take(key);
        if (handedOn) return releaser(key, handedOn.id, handedOn.takenAt);
        const takenAt = Date.now();
        const id = await store.take({ egress, host, limit, holder, ttlMs: SLOT_TTL_MS, priority }).catch(() => undefined);
        if (id !== undefined) {
          held.add(id);
          return releaser(key, id, takenAt);
        }
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
      spare.giveAllBack();
    },
  };
}
