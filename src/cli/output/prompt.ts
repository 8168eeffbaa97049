import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { InterruptedError, UsageError } from './errors.js';

/**
 * Questions at the terminal. Prompts go to stderr so that stdout stays data only; a hidden answer
 * is read by a readline whose echo goes nowhere, so the secret never reaches the screen.
 */

/** Everything on a stream (stdin for `--with-token` and `--password-stdin`). */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  stream.setEncoding('utf8');
  for await (const chunk of stream) text += String(chunk);
  return text;
}

/**
 * The password of `--password-stdin`: the first line of stdin without its line end (so it never
 * sits in argv or shell history). A password may hold spaces, so nothing else is trimmed.
 */
export async function readPasswordLine(stream: NodeJS.ReadableStream): Promise<string> {
  const password = (await readAll(stream)).split(/\r?\n/)[0] ?? '';
  if (password === '') throw new UsageError('--password-stdin read an empty password');
  return password;
}

async function ask(input: NodeJS.ReadableStream, prompt: NodeJS.WritableStream, question: string, hidden: boolean): Promise<string> {
  const echo = hidden ? new Writable({ write: (_chunk, _encoding, done) => done() }) : prompt;
  const lines = createInterface({ input, output: echo, terminal: true });
  // Only now, with the terminal in raw mode and its own echo off, may the user start typing.
  if (hidden) prompt.write(question);
  const interrupted = new Promise<never>((_resolve, reject) =>
    // In raw mode Ctrl-C reaches readline, not the process: turn it into the interrupted exit.
    lines.once('SIGINT', () => reject(new InterruptedError('interrupted'))),
  );
  try {
    return await Promise.race([lines.question(hidden ? '' : question), interrupted]);
  } finally {
    lines.close();
    if (hidden) prompt.write('\n');
  }
}

export const askLine = (input: NodeJS.ReadableStream, prompt: NodeJS.WritableStream, question: string) => ask(input, prompt, question, false);
export const askHidden = (input: NodeJS.ReadableStream, prompt: NodeJS.WritableStream, question: string) => ask(input, prompt, question, true);
