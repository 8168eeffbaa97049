import { createInterface } from 'node:readline';
import { announceStdinRead, type Io } from './io.js';

/** Non-blank, trimmed lines of a stream (stdin for `-`), read as they arrive. */
async function* readLines(stream: NodeJS.ReadableStream): AsyncGenerator<string> {
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  for await (const line of lines) {
    const trimmed = line.trim();
    if (trimmed !== '') yield trimmed;
  }
}

/**
 * The addresses named on the command line, trimmed as the engine reports them, with `-`
 * replaced by stdin's lines and blank arguments dropped.
 */
export async function collectAddresses(args: string[], io: Io): Promise<string[]> {
  const addresses: string[] = [];
  for (const arg of args) {
    if (arg === '-') {
      announceStdinRead(io);
      for await (const line of readLines(io.stdin)) addresses.push(line);
    } else if (arg.trim() !== '') addresses.push(arg.trim());
  }
  return addresses;
}
