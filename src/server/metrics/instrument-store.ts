import { STORE_PARTS, StoreFault, type Store, type StorePart as Part } from '../store/store.js';
import type { Metrics } from './metrics.js';

/** Credits moved by a store call, read off its arguments and outcome (the store is where every balance changes). */
function countCredits(metrics: Metrics, part: Part, method: string, args: unknown[], outcome: unknown): void {
  const result = (outcome ?? {}) as { ok?: boolean; kind?: string; replayed?: boolean; queued?: number; refunded?: number };
  if (part === 'accounts' && method === 'charge' && result.ok) metrics.creditsCharged.inc(args[1] as number);
  else if (part === 'accounts' && method === 'chargeWithKey' && result.kind === 'charged') metrics.creditsCharged.inc(args[1] as number);
  else if (part === 'jobs' && method === 'createJob' && result.ok && !result.replayed) metrics.creditsCharged.inc(result.queued ?? 0);
  // A refund's outcome says what it gave back (nothing when the charge was refunded already); a batch of results what its refunds of unknowns did;
  // a job deleted while processing what it gave back of its addresses without a result.
  else if ((part === 'accounts' && method === 'refund') || (part === 'work' && method === 'saveResults') || (part === 'jobs' && method === 'deleteJob')) {
    metrics.creditsRefunded.inc(result.refunded ?? 0);
  }
}

/** The store with every call timed and counted (errors by kind, credits moved), for the metrics listener. */
export function instrumentStore(store: Store, metrics: Metrics): Store {
  const watch = <Watched extends object>(part: Part, target: Watched): Watched =>
    new Proxy(target, {
      get(object, name) {
        const member: unknown = Reflect.get(object, name);
        if (typeof member !== 'function' || typeof name !== 'string') return member;
        return async (...args: unknown[]) => {
          const done = metrics.storeCalls.startTimer({ part, method: name });
          try {
            const outcome: unknown = await member.apply(object, args);
            countCredits(metrics, part, name, args, outcome);
            return outcome;
          } catch (error) {
            metrics.storeErrors.inc({ part, method: name, kind: error instanceof StoreFault ? 'unavailable' : 'other' });
            throw error;
          } finally {
            done();
          }
        };
      },
    });
  const watched = Object.fromEntries(STORE_PARTS.map((part) => [part, watch(part, store[part])]));
  return { ...(watched as Pick<Store, Part>), close: () => store.close() };
}
