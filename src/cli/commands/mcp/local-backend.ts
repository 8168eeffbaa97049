import type { EngineOptions } from '../../../engine/core/types.js';
import type { JobProgress } from '../../../server/store/open/open-store.js';
import { openLocalJobs } from '../../local-service/local-jobs.js';
import { CliError, ExitCode } from '../../output/errors.js';
import type { JobStatus, McpBackend, Submitted } from './backend.js';

function statusOf(job: JobProgress): JobStatus {
  const { id, status, total, processed, waiting, nextAttemptAt } = job;
  const percent = total === 0 ? 100 : Math.floor((100 * processed) / total);
  return { job_id: id, status, total, processed, progress_percent: percent, ...(waiting > 0 ? { waiting, next_attempt_at: nextAttemptAt } : {}) };
}

/**
 * This machine (`mcp --local`): single addresses go to the engine in process, as `verify --local`;
 * lists become jobs of the local data dir's store, worked by a runner while the server runs, as
 * `bulk submit --local` works them (local-service/local-jobs.ts). Nothing is charged; a submission
 * retried with the same key gets the job it made, not a second one.
 */
export async function localBackend(dataDir: string, engine: EngineOptions, warn: (message: string) => void): Promise<McpBackend> {
  const local = await openLocalJobs({ dataDir, engine, warn });
  const submitted = new Map<string, Promise<Submitted>>();
  const known = async (jobId: string) => {
    const job = await local.job(jobId);
    if (job === undefined)
      throw new CliError(`no job ${jobId} in ${dataDir}`, ExitCode.notFound, 'job ids come from submit_list of a server with the same --data-dir');
    return job;
  };
  return {
    where: `this machine (the engine here; lists kept in ${dataDir})`,
    verify: (email, { explain }) => local.verifier.verify(email, { explain }),
    submit(addresses, { name, fresh, key }) {
      const earlier = submitted.get(key);
      if (earlier) return earlier;
      const job = local.newJob(addresses, { name, fresh }).then((jobId) => ({ job_id: jobId, queued: addresses.length }));
      submitted.set(key, job);
      // A submission that failed is not one to replay: a retry makes it afresh.
      job.catch(() => submitted.delete(key));
      return job;
    },
    status: async (jobId) => statusOf(await known(jobId)),
    async results(jobId) {
      await known(jobId);
      return local.results([jobId]);
    },
    close: () => local.close(),
  };
}
