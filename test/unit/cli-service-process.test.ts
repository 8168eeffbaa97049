import { describe, expect, it } from 'vitest';
import { runUntilSignal, withShutdownSignal } from '../../src/cli/local-service/service-process.js';
import { CliError, ExitCode } from '../../src/cli/output/errors.js';
import { memoryIo } from '../support/cli-parse.js';
import { processListeners } from '../support/service-command.js';

/** How `serve` and `worker` stop: within a grace after the signal, without ending the process, leaving no listener behind. */

/** A stderr in memory, and what was written on it. */
function memoryStderr(): { stream: NodeJS.WritableStream; text: () => string } {
  const { io, stderr } = memoryIo({});
  return { stream: io.stderr, text: stderr };
}

describe('runUntilSignal', () => {
  it('closes what runs once the signal comes, and returns', async () => {
    const stderr = memoryStderr();
    let closed = false;
    await runUntilSignal(Promise.resolve('SIGINT'), Promise.resolve({ close: async () => void (closed = true) }), stderr.stream);
    expect(closed).toBe(true);
    expect(stderr.text()).toBe('mailverify: SIGINT received, shutting down\n');
  });

  it('gives up on a close still going 3 s after the signal (exit 1)', async () => {
    const stderr = memoryStderr();
    const startedAt = Date.now();
    const hanging = runUntilSignal(Promise.resolve('SIGTERM'), { close: () => new Promise<void>(() => undefined) }, stderr.stream);
    await expect(hanging).rejects.toThrow(CliError);
    await expect(hanging).rejects.toMatchObject({ message: 'still closing 3 s after the signal; exiting without waiting', exitCode: ExitCode.failure });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(2_900);
    expect(Date.now() - startedAt).toBeLessThan(5_000);
  });
});

describe('withShutdownSignal', () => {
  it('removes its listeners however the body ends, and logs a stray rejection meanwhile', async () => {
    const before = processListeners();
    const stderr = memoryStderr();
    await expect(
      withShutdownSignal(stderr.stream, async () => {
        expect(processListeners()).toEqual({ SIGINT: before.SIGINT! + 1, SIGTERM: before.SIGTERM! + 1, unhandledRejection: before.unhandledRejection! + 1 });
        process.emit('unhandledRejection', new Error('a driver lost its connection'), Promise.resolve());
        throw new Error('the store is away');
      }),
    ).rejects.toThrow('the store is away');
    expect(stderr.text()).toBe('mailverify: a stray error was ignored: a driver lost its connection\n');
    expect(processListeners()).toEqual(before);
    const signalled = withShutdownSignal(stderr.stream, (shutdown) => shutdown);
    process.emit('SIGINT', 'SIGINT');
    expect(await signalled).toBe('SIGINT');
    expect(processListeners()).toEqual(before);
  });
});
