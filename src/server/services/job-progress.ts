import type { JobProgress, JobStore } from '../store/store.js';

/** A whole number that reaches 100 only with the last result (a job has at least one email). */
export function progressPercent(job: Pick<JobProgress, 'processed' | 'total'>): number {
  return Math.floor((100 * job.processed) / job.total);
}

/**
 * A user's job and how far it has gone, as the API's progress route and the dashboard's job page
 * both show it; undefined when the user has no such job (another user's job is as unknown as a
 * missing one).
 */
export async function jobProgress(jobs: Pick<JobStore, 'getJob'>, userId: number, jobId: string): Promise<(JobProgress & { percent: number }) | undefined> {
  const job = await jobs.getJob(userId, jobId);
  return job && { ...job, percent: progressPercent(job) };
}
