import type { EgressBenchStore } from '../store/store.js';
import type { MaintenanceService } from './service.js';

/** How often benches that ran out are deleted; one that ran out already counts for nothing meanwhile. */
const EXPIRE_EVERY_MS = 60_000;

/** Deletes the egress benches whose cool-down is over (docs/architecture.md "Egress"), so the table holds only those in force and a few. */
export function benchExpirer(benches: Pick<EgressBenchStore, 'expire'>): MaintenanceService {
  return {
    name: 'bench_expirer',
    everyMs: EXPIRE_EVERY_MS,
    failed: 'could not delete the egress benches that ran out; trying again later',
    run: () => benches.expire(),
  };
}
