/** An unfinished job as a store reads it when choosing where the next chunk of work comes from. */
export interface CandidateJob {
  id: string;
  user_id: number;
  /** ISO timestamp: compares as text. */
  created_at: string;
  /** The job asked for every address afresh (SQLite's boolean arrives as 0 or 1). */
  fresh: boolean | number;
  /** Items of the job under a lease that has not expired (PostgreSQL's bigint arrives as text). */
  in_flight: number | string;
  /** JobDetails.settleWithinSeconds as a time (epoch ms), or null. */
  settle_by: number | null;
  /** A sandbox job (SQLite's boolean arrives as 0 or 1). */
  sandbox: boolean | number;
}

/**
 * Unfinished jobs in the order they get the next chunk: the user with the fewest items in flight
 * first (ties: the user waiting longest, i.e. with the oldest job), then that user's oldest job.
 */
export function fairOrder<Job extends CandidateJob>(jobs: readonly Job[]): Job[] {
  const users = new Map<number, { inFlight: number; oldest: string }>();
  for (const job of jobs) {
    const user = users.get(job.user_id) ?? { inFlight: 0, oldest: job.created_at };
    user.inFlight += Number(job.in_flight);
    if (job.created_at < user.oldest) user.oldest = job.created_at;
    users.set(job.user_id, user);
  }
  const userOf = (job: Job) => users.get(job.user_id)!;
  return [...jobs].sort(
    (a, b) =>
      userOf(a).inFlight - userOf(b).inFlight ||
      userOf(a).oldest.localeCompare(userOf(b).oldest) ||
      a.user_id - b.user_id ||
      a.created_at.localeCompare(b.created_at) ||
      a.id.localeCompare(b.id),
  );
}
