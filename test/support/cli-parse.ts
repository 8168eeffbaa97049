import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { createIo, type Io } from '../../src/cli/output/io.js';
import { parsedCommand, type ParsedCommand } from '../../src/cli/options/parsed-command.js';
import { buildProgram } from '../../src/cli/program/build.js';

/**
 * What commander makes of a command line (without `mailverify`), through the real program tree, for
 * the command that would run: its actions are replaced, so nothing runs and no module is loaded.
 */
export function parseCommandLine(argv: string[]): ParsedCommand {
  const program = buildProgram();
  let parsed: ParsedCommand | undefined;
  const capture = (command: Command): void => {
    if (command.commands.length > 0) command.commands.forEach(capture);
    else command.action((...args: unknown[]) => void (parsed = parsedCommand(args.slice(0, -2), command)));
  };
  capture(program);
  program.parse(argv, { from: 'user' });
  if (parsed === undefined) throw new Error(`no command ran for ${argv.join(' ')}`);
  return parsed;
}

/** An Io on streams of memory (no terminal), with what is written to stdout and stderr, and stdin given whole. */
export function memoryIo(env: NodeJS.ProcessEnv, { stdin = '', json = false } = {}): { io: Io; stdout: () => string; stderr: () => string } {
  const collect = () => {
    const stream = new PassThrough();
    let text = '';
    stream.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    return { stream, text: () => text };
  };
  const [stdout, stderr] = [collect(), collect()];
  const input = new PassThrough();
  input.end(stdin);
  return { io: createIo({ json }, env, { stdin: input, stdout: stdout.stream, stderr: stderr.stream }), stdout: stdout.text, stderr: stderr.text };
}
