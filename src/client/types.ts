import type { VerificationResult } from '../engine/types.js';

/** The bodies of the service's answers (docs/api.md "Resources"), field names as on the wire. */

export type { VerificationResult };

/** `POST /v1/bulk-verify` (docs/api.md "Routes"). */
export interface BulkSubmission {
  jobId: string;
  queued: number;
}

/** Job statuses: the contract names these two; others may come later. */
export type JobStatus = 'processing' | 'completed' | (string & {});

/** `GET /v1/bulk-verify/{id}/progress` (docs/api.md "Routes"). */
export interface JobProgress {
  job_id: string;
  status: JobStatus;
  total: number;
  processed: number;
  progress_percent: number;
}

/** `GET /v1/bulk-verify/{id}` (docs/api.md "Routes"): each entry is a full verification result. */
export interface JobWithResults {
  id: string;
  status: JobStatus;
  total: number;
  processed: number;
  results: VerificationResult[];
}

/** A page of a job's results (`?limit=&cursor=`): `next_cursor` asks for the next; null after the last, absent from a service that does not page. */
export interface JobPage extends JobWithResults {
  next_cursor?: string | null;
}

export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

/** `GET /v1/account`. */
export interface Account {
  email: string;
  balance: number;
  rateLimit: RateLimit;
}

/** `POST /v1/auth/login`: a JWT valid for a short while. */
export interface LoginResponse {
  token: string;
  tokenType: 'Bearer';
  expiresAt: string;
}

interface TokenFields {
  id: string;
  name: string;
  createdAt: string;
}

/** An API token as listed by `GET /v1/tokens`: never the secret. */
export interface TokenInfo extends TokenFields {
  lastUsedAt: string | null;
}

/** `POST /v1/tokens`: the only time the secret `mv_` token is shown. */
export interface CreatedToken extends TokenFields {
  token: string;
}

export interface Health {
  status: 'ok';
}
