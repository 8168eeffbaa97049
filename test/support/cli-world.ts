import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createCliSandbox, type CliSandbox } from './cli-sandbox.js';
import { startMailWorld, type MailWorld } from './service-app.js';
import { startService, type RunningService } from './service.js';
import { testTempDir } from './temp-dirs.js';

/**
 * Everything an end-to-end test of the CLI's list commands stands on: DNS and SMTP fixtures, the
 * real service asking them, one user with a token, a CLI sandbox logged in as that user (by
 * environment), and a temp directory for the lists and outputs. `close` stops and removes it all.
 */
export interface CliWorld {
  world: MailWorld;
  service: RunningService;
  token: string;
  dir: string;
  cli: CliSandbox;
  /** Writes a file into `dir` and returns its path. */
  file(name: string, content: string | Uint8Array): Promise<string>;
  close(): Promise<void>;
}

export interface CliWorldOptions {
  mailboxes: string[];
  /** Mailboxes the SMTP fixture answers 450 first (see startMailWorld). */
  greylist?: { times: number; addresses?: string[] };
  user: string;
  /** Changes to the fixtures before the service starts (slow DNS answers, ...). */
  prepare?: (world: MailWorld) => void;
  /** `serve` flags beside the fixtures' engine flags. */
  serveArgs?: string[];
}

export async function startCliWorld(options: CliWorldOptions): Promise<CliWorld> {
  const world = await startMailWorld({ mailboxes: options.mailboxes, greylist: options.greylist });
  options.prepare?.(world);
  const service = await startService({ engineArgs: [...world.engineArgs, ...(options.serveArgs ?? [])] });
  const token = await service.createUser(options.user, { credits: 1_000_000, rateLimit: 1_000 });
  const dir = testTempDir('cli-e2e');
  const cli = await createCliSandbox({ MAILVERIFY_BASE_URL: service.baseUrl, MAILVERIFY_TOKEN: token });
  return {
    world,
    service,
    token,
    dir,
    cli,
    async file(name, content) {
      const path = join(dir, name);
      await writeFile(path, content);
      return path;
    },
    async close() {
      await cli.close();
      await service.stop();
      await world.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
