import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliSandbox, type CliSandbox } from '../support/cli-sandbox.js';
import { MAIL_DOMAIN, startMailWorld, type MailWorld } from '../support/service-app.js';
import { startService, type RunningService } from '../support/service.js';

/**
 * A remote SMTP server chooses the text of its replies, and that text reaches the user as a
 * result's `reason`. Here it is hostile: it clears the screen, sets the window title, hides an
 * OSC 8 link, sends a one-byte C1 CSI, rings the bell and backspaces over the verdict so that
 * `invalid` would read `ok valid`. Whatever `verify` writes (locally and through the service,
 * human lines and JSON) must hold none of those bytes raw, and JSON must still carry the text.
 */

const HOSTILE =
  '5.1.1 no such user\u001b[2J\u001b]0;owned\u0007 \u001b]8;;http://evil.test/\u001b\\click\u001b]8;;\u001b\\ \u009b31m red \u0007 \b\b\b\b\b\b\b\bok valid \u007fend';
const VICTIM = `nobody@${MAIL_DOMAIN}`;

/** Any C0 control but the line feed that ends each line, DEL, C1, and the Unicode line separators. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/;

function expectNoRawControls(text: string): void {
  const found = RAW_CONTROL.exec(text);
  expect(found, found ? `raw U+${found[0].charCodeAt(0).toString(16).padStart(4, '0')} in ${JSON.stringify(text)}` : '').toBeNull();
}

describe('hostile SMTP reply text in verify output', () => {
  let world: MailWorld;
  let service: RunningService;
  let local: CliSandbox;
  let remote: CliSandbox;
  let localArgs: string[];

  beforeAll(async () => {
    world = await startMailWorld({ mailboxes: [], unknownUserText: HOSTILE });
    service = await startService({ engineArgs: world.engineArgs });
    const token = await service.createUser('victim@example.test', { credits: 10 });
    local = await createCliSandbox();
    remote = await createCliSandbox({ MAILVERIFY_BASE_URL: service.baseUrl, MAILVERIFY_TOKEN: token });
    localArgs = ['--local', '--allow-private-networks', '--no-web-check', ...world.engineArgs];
  });

  afterAll(async () => {
    await Promise.all([local?.close(), remote?.close()]);
    await service?.stop();
    await world?.close();
  });

  const cases = [
    { name: 'local, human lines', cli: () => local, args: () => ['verify', ...localArgs, VICTIM] },
    { name: 'local, --json', cli: () => local, args: () => ['verify', '--json', ...localArgs, VICTIM] },
    { name: 'through the service, human lines', cli: () => remote, args: () => ['verify', VICTIM] },
    { name: 'through the service, --json', cli: () => remote, args: () => ['verify', '--json', VICTIM] },
  ];

  it.each(cases)('$name: no raw control character on stdout or stderr', async ({ cli, args }) => {
    const run = await cli().run(args());
    expect(run.code, run.stderr).toBe(0);
    expectNoRawControls(run.stdout);
    expectNoRawControls(run.stderr);
    if (args().includes('--json')) {
      // Escaped, not dropped: a JSON reader gets the server's words exactly.
      const result = JSON.parse(run.stdout) as { result: string; reason: string };
      expect(result.result).toBe('invalid');
      expect(result.reason).toContain(HOSTILE.slice('5.1.1 '.length));
    } else {
      // The escapes are shown, so a reader sees that the server sent them; the verdict stays first.
      expect(run.stdout).toMatch(/^invalid\s+nobody@service\.test {2}.*\\x1b\[2J.*\\x9b31m.*\\x08\\x08ok valid/);
    }
  });

  it('bulk submit --wait as ndjson: C1, DEL and line separators escaped', async () => {
    const list = `${VICTIM}\n`;
    const ndjson = await remote.run(['bulk', 'submit', '-', '--wait', '--format', 'ndjson'], { stdin: list });
    expect(ndjson.code, ndjson.stderr).toBe(0);
    expectNoRawControls(ndjson.stdout);
    expectNoRawControls(ndjson.stderr);
    expect((JSON.parse(ndjson.stdout) as { reason: string }).reason).toContain('\u009b31m');
  });
});
