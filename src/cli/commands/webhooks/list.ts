import { terminalSafe, toSafeJson } from '../../../text/sanitize.js';
import type { Io } from '../../output/io.js';
import type { ProgramOnly } from '../../options/program-options.js';
import { withClient } from '../../session/with-client.js';

export { programOnly as parse } from '../../options/program-options.js';

/** The account's endpoints, each with its last delivery attempt. */
export async function run({ program }: ProgramOnly, io: Io): Promise<void> {
  await withClient(program, io, async (client) => {
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
