import type { FastifyRequest } from 'fastify';
import { sandboxResult } from '../../engine/sandbox.js';
import type { VerificationResult } from '../../engine/core/types.js';
import { currentAccess, currentUser } from '../auth/guard.js';
import { ProblemError } from '../http/errors.js';
import type { JobProgress, JobStore } from '../store/store.js';

/**
 * The sandbox at the API's routes (docs/api.md "Sandbox"): a test token's single verification is
 * the engine's sandbox answer, free and with no server asked; its bulk jobs are sandbox jobs, which
 * only test tokens see, as live jobs only live tokens see. Kept apart from the routes so that they
 * each ask one question here.
 */

/** Whether the request came with a test token (`mv_test_…`). */
export function isTestCaller(request: FastifyRequest): boolean {
  return currentAccess(request).test === true;
}

/** A test token's answer to `POST /v1/verify`: nothing charged, nothing kept, never the result cache. */
export function sandboxVerify(email: string): VerificationResult {
  return sandboxResult(email);
}

/** Another user's job, or one on the other side of the sandbox, is as unknown as a missing one: a 404 never tells that it exists. */
export function noSuchJob(jobId: string): ProblemError {
  return new ProblemError('not_found', `No job ${jobId}.`);
}

/** The caller's job when its token may read it (a test token a sandbox job, a live one a live job), else the 404. */
export async function callerJob(jobs: Pick<JobStore, 'getJob'>, request: FastifyRequest, jobId: string): Promise<JobProgress> {
  const job = await jobs.getJob(currentUser(request).id, jobId);
  if (!job || job.sandbox !== isTestCaller(request)) throw noSuchJob(jobId);
  return job;
}
