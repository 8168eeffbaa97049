import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { TOPICS } from '../help/topics.js';
import { createIo } from '../io.js';

/** `mailverify help [topic | command…]`: a topic (exit-codes, environment, csv), or a command's --help. */
export async function runHelp(words: string[], command: Command): Promise<void> {
  let target = command.parent!;
  const topic = TOPICS[words.join(' ')];
  if (topic !== undefined) {
    createIo(command.optsWithGlobals()).stdout.write(topic);
    return;
  }
  for (const word of words) {
    const sub = target.commands.find((each) => each.name() === word);
    if (!sub) throw new UsageError(`no help topic or command "${words.join(' ')}"`, `topics: ${Object.keys(TOPICS).join(', ')}; commands: mailverify --help`);
    target = sub;
  }
  target.outputHelp();
}
