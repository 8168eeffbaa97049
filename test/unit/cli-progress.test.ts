import { clearLine, cursorTo, moveCursor } from 'node:readline';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { startProgress, type Tally } from '../../src/cli/commands/bulk/support/progress.js';
import { createIo } from '../../src/cli/output/io.js';

/** The progress display of `--wait` and `--watch`: drawn on a terminal's stderr only, coloured only when colour is on. */

/** An Io whose stderr is a terminal (as far as anyone can tell), recording what is drawn on it. */
function terminal(flags: { json?: boolean; quiet?: boolean; color?: boolean }, env: NodeJS.ProcessEnv = {}) {
  const stream = new PassThrough();
  // The cursor moves of a tty.WriteStream, which ora uses to redraw its line.
  const stderr = Object.assign(stream, {
    isTTY: true,
    columns: 80,
    cursorTo: (x: number, callback?: () => void) => cursorTo(stream, x, undefined, callback),
    moveCursor: (dx: number, dy: number, callback?: () => void) => moveCursor(stream, dx, dy, callback),
    clearLine: (dir: -1 | 0 | 1, callback?: () => void) => clearLine(stream, dir, callback),
  });
  let drawn = '';
  stderr.setEncoding('utf8').on('data', (chunk: string) => (drawn += chunk));
  const stdout = Object.assign(new PassThrough(), { isTTY: true });
  return { io: createIo(flags, env, { stdin: new PassThrough(), stdout, stderr }), drawn: () => drawn };
}

const CYAN = '\u001b[36m';

/** Where the jobs stand: `processed` of `total`, none waiting unless given. */
const at = (processed: number, total: number, waiting: Pick<Tally, 'waiting' | 'nextAttemptAt'> = { waiting: 0, nextAttemptAt: null }): Tally => ({
  processed,
  total,
  ...waiting,
});

describe('startProgress', () => {
  it('shows percent, processed/total and ETA on a terminal, in colour when colour is on', async () => {
    const { io, drawn } = terminal({});
    const progress = await startProgress(io, 'verifying', { lines: true });
    progress.update(at(1, 4));
    await vi.waitFor(() => expect(drawn()).toContain('verifying: 25% 1/4, ETA'));
    progress.stop();
    expect(drawn()).toContain(CYAN);
  });

  it('draws without colour under NO_COLOR or --no-color', async () => {
    for (const { flags, env } of [
      { flags: {}, env: { NO_COLOR: '1' } },
      { flags: { color: false }, env: {} },
    ]) {
      const { io, drawn } = terminal(flags, env);
      const progress = await startProgress(io, 'verifying', { lines: true });
      progress.update(at(2, 4));
      await vi.waitFor(() => expect(drawn()).toContain('verifying: 50% 2/4'));
      progress.stop();
      expect(drawn()).not.toContain(CYAN);
    }
  });

  it('with --json, even on a terminal, draws no spinner but says what it waits for in lines, the first at once', async () => {
    const { io, drawn } = terminal({ json: true });
    const progress = await startProgress(io, 'waiting for job j1', { lines: true });
    progress.update(at(1, 2));
    progress.update(at(1, 2));
    progress.note('no answer (ECONNREFUSED); trying again in 2s');
    progress.stop();
    expect(drawn()).toBe(
      'mailverify: waiting for job j1: 1/2 (50%); Ctrl-C stops waiting, the service goes on\n' + 'mailverify: no answer (ECONNREFUSED); trying again in 2s\n',
    );
  });

  it('says how many addresses wait for their next try and when the next is, and that it goes on waiting', async () => {
    const { io, drawn } = terminal({ json: true });
    const progress = await startProgress(io, 'waiting for job j1', { lines: true });
    const next = new Date(Date.UTC(2026, 10, 29, 14, 5));
    progress.update(at(8, 10, { waiting: 2, nextAttemptAt: next.toISOString() }));
    progress.stop();
    const local = next.toTimeString().slice(0, 5);
    expect(drawn()).toBe(
      `mailverify: waiting for job j1: 8/10 (80%); 2 waiting for their next try (greylisting), the next at ${local}; Ctrl-C stops waiting, the service goes on\n`,
    );
  });

  it('with --quiet says nothing at all', async () => {
    const { io, drawn } = terminal({ quiet: true });
    const progress = await startProgress(io, 'waiting', { lines: true });
    progress.update(at(1, 2));
    progress.note('a note');
    progress.stop();
    expect(drawn()).toBe('');
  });
});
