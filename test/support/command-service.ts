import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openConfigStore } from '../../src/config/config-store.js';
import type { User } from '../../src/server/store/store.js';
import { MISSING_DOMAIN, startMailWorld, startTestApp, type MailWorld, type TestApp } from './service-app.js';
import { testTempDir } from './temp-dirs.js';

/**
 * What the unit tests of the client commands run against: the real service in this process on a
 * loopback port (startTestApp, its engine on DNS and SMTP fixtures), and users logged in to it the
 * way `login` leaves a CLI: a config dir of their own whose default profile holds the token.
 */
export interface CommandService {
  app: TestApp;
  /** The DNS and SMTP fixtures the service's engine asks (`engineArgs` points a local run at them too). */
  world: MailWorld;
  /** A new user with credits, and the environment of a CLI logged in as them (for memoryIo). */
  loggedIn(email: string, credits?: number): Promise<LoggedIn>;
  /** Submits addresses as a job over the API, its id (addresses at MISSING_DOMAIN complete without SMTP). */
  submit(token: string, emails: string[]): Promise<string>;
  close(): Promise<void>;
}

export interface LoggedIn {
  user: User;
  token: string;
  env: NodeJS.ProcessEnv;
}

export async function startCommandService(): Promise<CommandService> {
  const world: MailWorld = await startMailWorld({ mailboxes: [] });
  const app = await startTestApp({ world });
  const root = testTempDir('commands');
  return {
    app,
    world,
    async loggedIn(email, credits = 100) {
      const { user, token } = await app.createUser(email, { credits });
      const env = { MAILVERIFY_CONFIG_DIR: join(root, email) };
      openConfigStore(env).saveProfile('default', { baseUrl: app.baseUrl, token });
      return { user, token, env };
    },
    async submit(token, emails) {
      const reply = await app.call('POST', '/v1/bulk-verify', { token, json: { emails } });
      if (reply.status !== 200) throw new Error(`bulk-verify: HTTP ${reply.status} ${JSON.stringify(reply.body)}`);
      return reply.body.jobId as string;
    },
    async close() {
      await app.close();
      await world.close();
    },
  };
}

/** `count` addresses that do not exist (their domain has no DNS), so that a job of them completes at once. */
export function missingAddresses(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `nobody${index}@${MISSING_DOMAIN}`);
}

/** A test file's service and the login of its first user, there from beforeAll on. */
export interface FileService {
  service: CommandService;
  login: LoggedIn;
}

/** The service for the tests of the file that calls this: started before them with `email` logged in, stopped after them. */
export function serviceForFile(email: string): FileService {
  const fixture = {} as FileService;
  beforeAll(async () => {
    fixture.service = await startCommandService();
    fixture.login = await fixture.service.loggedIn(email);
  });
  afterAll(() => fixture.service?.close());
  return fixture;
}
