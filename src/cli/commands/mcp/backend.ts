import type { ResultIndex } from '../../../csv/result-index.js';
import type { VerificationResult } from '../../../engine/core/types.js';

/** A job's progress as the contract's progress route names its fields, whichever side works it. */
export interface JobStatus {
  job_id: string;
  status: 'processing' | 'completed';
  total: number;
  processed: number;
  progress_percent: number;
  /** Addresses waiting for their next try (greylisting), when some are. */
  waiting?: number;
  next_attempt_at?: string | null;
}

export interface Submitted {
  job_id: string;
  queued: number;
}

/**
 * What the tools stand on: the profile's service through the API client, or this machine's engine
 * and local job machinery (`--local`). `key` is the call's idempotency key (idempotency.ts).
 */
export interface McpBackend {
  /** Where verification happens, for the server's instructions: "the service at …" or "this machine". */
  readonly where: string;
  verify(email: string, options: { fresh: boolean; explain: boolean; key: string }): Promise<VerificationResult>;
  submit(addresses: string[], options: { name?: string; fresh: boolean; key: string }): Promise<Submitted>;
  status(jobId: string): Promise<JobStatus>;
  /** Every result stored so far, by address. */
  results(jobId: string): Promise<ResultIndex>;
  close(): Promise<void>;
}
