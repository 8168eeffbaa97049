import type { ApiClient } from '../../../client/api-client.js';
import type { Io } from '../../output/io.js';
import type { ProgramOptions } from '../../options/program-options.js';
import { createSession } from '../../session/session.js';
import { fetchResults } from '../bulk/support/jobs.js';
import type { McpBackend } from './backend.js';

/**
 * The profile's service, through the API client the CLI uses, with the token of the config store.
 * The client is made at the first call, so that the server starts (and lists its tools) without a
 * token: a call then fails as a tool error that says how to log in.
 */
export function remoteBackend(program: ProgramOptions, io: Io): McpBackend {
  const session = createSession(program, io);
  let client: ApiClient | undefined;
  const api = () => (client ??= session.authenticatedClient());
  return {
    where: `the service at ${session.settings.baseUrl}, profile ${session.settings.profile}`,
    verify: (email, { fresh, explain, key }) => api().verify(email, { idempotencyKey: key, fresh, explain }),
    async submit(addresses, { name, fresh, key }) {
      const { jobId, queued } = await api().submitBulk(addresses, { idempotencyKey: key, name, fresh });
      return { job_id: jobId, queued };
    },
    async status(jobId) {
      const { job_id, status, total, processed, progress_percent, waiting, nextAttemptAt } = await api().progress(jobId);
      return { job_id, status, total, processed, progress_percent, ...(waiting ? { waiting, next_attempt_at: nextAttemptAt ?? null } : {}) };
    },
    results: (jobId) => fetchResults(api(), [jobId]),
    close: () => session.close(),
  };
}
