import { terminalSafe, toSafeJson } from '../../../../text/sanitize.js';
import type { Io } from '../../../output/io.js';
import type { ProgramOnly } from '../../../options/program-options.js';
import { withClient } from '../../../session/with-client.js';

export { programOnly as parse } from '../../../options/program-options.js';

/** The account's receivers (never their URLs), each with when it last confirmed or took events. */
export async function run({ program }: ProgramOnly, io: Io): Promise<void> {
  await withClient(program, io, async (client) => {
    const receivers = await client.listEvidenceReceivers();
    if (io.json) return void io.stdout.write(`${toSafeJson(receivers)}\n`);
    for (const receiver of receivers) {
      const topic = receiver.kind === 'sns' ? `  topic ${terminalSafe(receiver.topicArn ?? 'any')}` : '';
      const confirmed =
        receiver.kind === 'sns' ? `  ${receiver.confirmedAt === null ? io.color.yellow('not confirmed') : `confirmed ${receiver.confirmedAt}`}` : '';
      const last = receiver.lastEventAt === null ? 'no events yet' : `last events ${receiver.lastEventAt}`;
      io.stdout.write(`${receiver.id}  ${receiver.kind}${topic}${confirmed}  ${last}\n`);
    }
  });
}
