import type { VerificationResult } from '../engine/core/types.js';
import type { jobPageSchema } from '../wire/contract.js';
import type { FromSchema } from 'json-schema-to-ts';

/**
 * The bodies of the service's answers (docs/api.md "Resources"), field names as on the wire: derived
 * from the JSON schemas the service validates with (src/wire/contract.ts), never written twice.
 */
export type {
  Account,
  BulkSubmission,
  CreateTokenRequest,
  CreatedToken,
  CreatedWebhook,
  JobList,
  DeviceAuthorization,
  DeviceToken,
  JobProgress,
  JobStatus,
  LoginResponse,
  TokenInfo,
  WebhookInfo,
  WebhookTest,
} from '../wire/contract.js';
export type { VerificationResult };

/**
 * A job with its results, or a page of them (`?limit=&cursor=`: `next_cursor` asks for the next; null
 * after the last, absent from a service that does not page). Each entry is the engine's result, the
 * type the schema was written from.
 */
export type JobPage = Omit<FromSchema<typeof jobPageSchema>, 'results'> & { results: VerificationResult[] };

/** `GET /healthz`: the service is up, and whether its engine can verify now (for `mailverify doctor`); why not is its operator's to read. */
export interface Health {
  status: 'ok';
  details?: { canVerify: boolean };
}
