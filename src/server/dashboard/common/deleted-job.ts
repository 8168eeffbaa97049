/**
 * What the lists page says once after the job page deleted a job (the cookie of common/shown-once.ts):
 * what it was called, how many addresses went, how many were refunded, and whether its uploaded list went too.
 */
export interface DeletedJob {
  name: string;
  total: number;
  refunded: number;
  upload: boolean;
}

export const DELETED_JOB = { cookie: 'mv_deleted_job', path: '/lists' };
