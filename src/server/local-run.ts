import { startJobRunner, type JobRunner, type JobRunnerOptions } from './jobs/runner.js';
import { dueWaker } from './maintenance/due-waker.js';
import { rescuer } from './maintenance/rescuer.js';
import { startMaintenance } from './maintenance/supervisor.js';

/* What the CLI's local runs (`verify --local`, `bulk submit --local`) take of the service besides the runner: the account's evidence after the probe. */
export { usingEvidence } from './verifier/evidence-verifier.js';
export type { ServiceVerifier } from './verifier/result-reuse.js';
export type { JobRunner };

/**
 * What `bulk submit --local` runs on its own store: a job runner, and beside it the maintenance its
 * queue needs (docs/architecture.md "Maintenance"): the rescuer, which frees the leases of an
 * earlier run that was killed, and the due waker, which brings back the addresses whose next try is
 * due. Both wake the runner; stopping it stops them.
 */
export function startLocalRunner(options: JobRunnerOptions): JobRunner {
  const { queue, log } = options;
  const runner = startJobRunner(options);
  const maintenance = startMaintenance([rescuer(queue, log, runner.wake), dueWaker(queue, log, runner.wake)], { log });
  return {
    wake: runner.wake,
    workDeleted: runner.workDeleted,
    stop: async () => void (await Promise.all([runner.stop(), maintenance.stop()])),
  };
}
