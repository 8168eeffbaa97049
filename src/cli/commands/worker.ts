import type { Io } from '../output/io.js';
import type { ParsedCommand } from '../options/parsed-command.js';
import { runUntilSignal, sayStarted, serviceSettings, withShutdownSignal, type ServiceSettings } from '../local-service/service-process.js';
import { storeLocationFrom, storeUnavailable } from '../local-service/store-location.js';

/** `worker`'s options: every one resolved (flag, environment, default) and checked before anything starts. */
export type WorkerOptions = ServiceSettings;

export function parse(parsed: ParsedCommand, env: NodeJS.ProcessEnv): Promise<WorkerOptions> {
  return serviceSettings(parsed, env);
}

/** `mailverify worker`: a job runner without HTTP, on the store `serve` uses, until SIGINT or SIGTERM. */
export async function run({ policy, store: storeFlags, ...settings }: WorkerOptions, { env, stderr }: Io): Promise<void> {
  await withShutdownSignal(stderr, async (shutdown) => {
    const options = { ...settings, ...(await storeLocationFrom(storeFlags, env)), ...policy };
    const { startWorker } = await import('../../server/worker.js');
    const worker = await startWorker(options).catch((error: unknown) => {
      throw storeUnavailable(error) ?? error;
    });
    // Tests and scripts wait for this line.
    stderr.write(`mailverify: worker running (pid ${process.pid}, leases of ${options.leaseMs / 1000} s)\n`);
    sayStarted(worker, stderr);
    await runUntilSignal(shutdown, worker, stderr);
  });
}
