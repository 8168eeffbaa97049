import type { Command } from 'commander';
import { UsageError } from '../output/errors.js';
import { TOPICS } from '../help/topics.js';
import type { Io } from '../output/io.js';
import { listArg, type ParsedCommand } from '../options/parsed-command.js';

export interface HelpOptions {
  /** A topic (`exit-codes`), or a command's words (`bulk submit`); none: the program's help. */
  words: string[];
  /** The command tree whose commands' help it prints. */
  tree: Command;
}

export function parse(parsed: ParsedCommand): HelpOptions {
  return { words: listArg(parsed, 0), tree: parsed.tree };
}

/** `mailverify help [topic | command…]`: a topic (exit-codes, environment, csv), or a command's --help. */
export async function run({ words, tree }: HelpOptions, io: Io): Promise<void> {
  const topic = TOPICS[words.join(' ')];
  if (topic !== undefined) {
    io.stdout.write(topic);
    return;
  }
  let target = tree;
  for (const word of words) {
    const sub = target.commands.find((each) => each.name() === word);
    if (!sub) throw new UsageError(`no help topic or command "${words.join(' ')}"`, `topics: ${Object.keys(TOPICS).join(', ')}; commands: mailverify --help`);
    target = sub;
  }
  target.outputHelp();
}
