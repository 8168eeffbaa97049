import type { Command } from 'commander';
import type { ApiClient } from '../client/api-client.js';
import type { Io } from './io.js';
import { createSession } from './session.js';

/** One authenticated call's run of a small subcommand (`webhooks …`, `tokens …`): a session opened, used, closed. */
export async function withClient(command: Command, work: (client: ApiClient, io: Io) => Promise<void>): Promise<void> {
  const session = createSession(command);
  try {
    await work(session.authenticatedClient(), session.io);
  } finally {
    await session.close();
  }
}
