import type { Command } from 'commander';
import { terminalSafe, toSafeJson } from '../../text/sanitize.js';
import { withClient } from '../with-client.js';

// `mailverify webhooks …`: the account's webhook endpoints (docs/api.md "Webhooks"), one small run per subcommand.

/** Registers an endpoint and prints its signing secret, the only time it is ever shown. */
export async function runWebhooksAdd(url: string, command: Command): Promise<void> {
  const { description } = command.opts<{ description?: string }>();
  await withClient(command, async (client, io) => {
    const created = await client.createWebhook(url, description);
    if (io.json) return void io.stdout.write(`${toSafeJson(created)}\n`);
    io.stdout.write(`${created.secret}\n`);
    if (!io.quiet) io.stderr.write(`endpoint ${created.id} added; the secret above verifies its deliveries and is not shown again\n`);
  });
}

export async function runWebhooksList(command: Command): Promise<void> {
  await withClient(command, async (client, io) => {
    const endpoints = await client.listWebhooks();
    if (io.json) return void io.stdout.write(`${toSafeJson(endpoints)}\n`);
    for (const endpoint of endpoints) {
      const last = endpoint.attempts[0];
      const lastText = last ? `last ${last.at} ${last.status ?? terminalSafe(last.error ?? 'no answer')} in ${last.latencyMs} ms` : 'no attempts yet';
      const state = endpoint.disabled ? io.color.red(`disabled: ${terminalSafe(endpoint.disabledReason ?? 'answered 410 Gone')}`) : lastText;
      io.stdout.write(`${endpoint.id}  ${terminalSafe(endpoint.url)}  ${state}\n`);
    }
  });
}

export async function runWebhooksRemove(id: string, command: Command): Promise<void> {
  await withClient(command, async (client, io) => {
    await client.deleteWebhook(id);
    if (!io.quiet) io.stderr.write(`endpoint ${terminalSafe(id)} removed\n`);
  });
}

/** Sends a `webhook.test` event; prints its id (the `webhook-id` the receiver sees). */
export async function runWebhooksTest(id: string, command: Command): Promise<void> {
  await withClient(command, async (client, io) => {
    const { eventId } = await client.testWebhook(id);
    io.stdout.write(io.json ? `${toSafeJson({ eventId })}\n` : `${eventId}\n`);
  });
}
