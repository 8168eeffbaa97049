import { toSafeJson } from '../../../text/sanitize.js';
import type { Io } from '../../output/io.js';
import { withClient } from '../../session/with-client.js';
import type { EndpointOptions } from './remove.js';

export { parse } from './remove.js';

/** Sends a `webhook.test` event; prints its id (the `webhook-id` the receiver sees). */
export async function run({ program, id }: EndpointOptions, io: Io): Promise<void> {
  await withClient(program, io, async (client) => {
    const { eventId } = await client.testWebhook(id);
    io.stdout.write(io.json ? `${toSafeJson({ eventId })}\n` : `${eventId}\n`);
  });
}
