import type { ApiClient } from '../../client/api-client.js';
import type { Io } from '../output/io.js';
import type { ProgramOptions } from '../options/program-options.js';
import { createSession } from './session.js';

/** One authenticated call's run of a small subcommand (`webhooks …`, `tokens …`): a session opened, used, closed. */
export async function withClient(program: ProgramOptions, io: Io, work: (client: ApiClient) => Promise<void>): Promise<void> {
  const session = createSession(program, io);
  try {
    await work(session.authenticatedClient());
  } finally {
    await session.close();
  }
}
