import { randomUUID } from 'node:crypto';
import type { HostSlotRequest } from '../model.js';
import { step, type Awaitable, type Flow } from './flow.js';

/**
 * How long an interactive take that found the host full keeps bulk takes there away: longer than
 * its pause between asks (it asks again and renews the wait), short enough that one that gave up
 * holds nobody back for long.
 */
export const HOST_SLOT_WAIT_MS = 1_000;

/** A slot at a host and who holds it. */
export interface HeldSlot {
  slot: number;
  holder: string;
}

/** The statements of taking a host slot, inside one transaction. `now` and expiries are epoch milliseconds. */
export interface HostSlotSteps {
  /** Keeps every other take at this egress and host waiting until this transaction ends. */
  lock(egress: string, host: string): Awaitable<void>;
  /** The slots at this egress and host whose lease has not run out. */
  unexpired(egress: string, host: string, now: number): Awaitable<HeldSlot[]>;
  /** Whether the holder still exists (its session, its process): the check the work queue's rescue makes. */
  isAlive(holder: string): Awaitable<boolean>;
  /** Writes the slot to this holder under a new id, whoever held it before (a holder gone, a lease run out). */
  occupy(request: HostSlotRequest, slot: number, id: string, expiresAt: number): Awaitable<void>;
  /** Whether an interactive take waits at this egress and host (its wait not run out). */
  interactiveWaits(egress: string, host: string, now: number): Awaitable<boolean>;
  /** Records (or extends) that an interactive take waits here until `until`; `null` ends the wait. */
  setInteractiveWait(egress: string, host: string, until: number | null): Awaitable<void>;
}

/**
 * The lowest slot number below `limit` nobody in `held` has, unless `held` counts `limit` already.
 * Held slots count whatever their number, so a process with a lower limit than another's still
 * waits while the other's sessions fill the host.
 */
function freeSlot(held: readonly HeldSlot[], limit: number): number | undefined {
  if (held.length >= limit) return undefined;
  const taken = new Set(held.map((each) => each.slot));
  for (let slot = 0; slot < limit; slot++) if (!taken.has(slot)) return slot;
  return undefined;
}

/**
 * See HostSlotStore.take. Whether holders are alive is asked only when every slot is taken: the
 * common case (a free slot) costs no liveness check, and a host full of a gone holder's slots is
 * free at once.
 */
export function* takeHostSlot(steps: HostSlotSteps, request: HostSlotRequest, now: number): Flow<string | undefined> {
  const { egress, host, limit, ttlMs, priority } = request;
  yield* step(steps.lock(egress, host));
  if (priority === 'bulk' && (yield* step(steps.interactiveWaits(egress, host, now)))) return undefined;
  const unexpired = yield* step(steps.unexpired(egress, host, now));
  let slot = freeSlot(unexpired, limit);
  if (slot === undefined) {
    const alive = new Map<string, boolean>();
    for (const { holder } of unexpired) if (!alive.has(holder)) alive.set(holder, yield* step(steps.isAlive(holder)));
    slot = freeSlot(
      unexpired.filter((each) => alive.get(each.holder)),
      limit,
    );
  }
  if (priority === 'interactive') yield* step(steps.setInteractiveWait(egress, host, slot === undefined ? now + HOST_SLOT_WAIT_MS : null));
  if (slot === undefined) return undefined;
  const id = randomUUID();
  yield* step(steps.occupy(request, slot, id, now + ttlMs));
  return id;
}
