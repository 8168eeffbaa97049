import { spawn } from 'node:child_process';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { isTransient } from '../../../client/errors.js';
import type { ApiClient } from '../../../client/api-client.js';
import type { DeviceAuthorization, DeviceToken } from '../../../client/types.js';
import { terminalSafe } from '../../../text/sanitize.js';
import { NotAuthenticatedError } from '../../output/errors.js';
import { canAsk, type Io } from '../../output/io.js';
import type { Session } from '../../session/session.js';

/**
 * `login --web`: the OAuth 2.0 device authorization grant (RFC 8628; docs/cli.md "Logging in"), as gh
 * and the stripe CLI log in. The service gives a code; the person approves it on the dashboard's
 * `/device` page, where they are signed in; meanwhile this polls, at the interval the service asks
 * and slower whenever told `slow_down`, until it is handed a token. The token is never printed.
 */

/** RFC 8628 §3.5: without an interval from the service, poll every 5 s; each `slow_down` adds 5 s. */
const DEFAULT_INTERVAL_SECONDS = 5;
const SLOW_DOWN_SECONDS = 5;
/** Polls in a row that got no answer (the network, a restarting service) before giving up. */
const TRANSIENT_FAILURES_TOLERATED = 3;

export type Sleep = (ms: number) => Promise<void>;

/** Opens the browser only for someone at a terminal: never in CI, without a TTY, with --no-input or --no-browser. */
export function shouldOpenBrowser(io: Io, browser: boolean): boolean {
  return browser && canAsk(io) && io.stderr.isTTY === true;
}

/** The platform's way to open a URL in the default browser; a failure to start it is not an error (the URL is printed). */
function openBrowser(url: string, platform: NodeJS.Platform = process.platform): void {
  const [command, args] =
    platform === 'darwin' ? ['open', [url]] : platform === 'win32' ? ['cmd', ['/c', 'start', '""', url.replaceAll('&', '^&')]] : ['xdg-open', [url]];
  const child = spawn(command, args, { detached: true, stdio: 'ignore' });
  child.on('error', () => undefined);
  child.unref();
}

/**
 * Polls until the login is approved (the token), denied or expired (a DeviceLoginError from the
 * client), or its time is up (NotAuthenticatedError). Waits the interval before each poll, so the
 * first comes after the person had a moment to approve.
 */
export async function pollForToken(client: Pick<ApiClient, 'pollDeviceLogin'>, start: DeviceAuthorization, sleep: Sleep, now = Date.now): Promise<DeviceToken> {
  const deadline = now() + start.expires_in * 1_000;
  let interval = start.interval > 0 ? start.interval : DEFAULT_INTERVAL_SECONDS;
  let failures = 0;
  while (now() < deadline) {
    await sleep(interval * 1_000);
    let answer;
    try {
      answer = await client.pollDeviceLogin(start.device_code);
      failures = 0;
    } catch (error) {
      if (!isTransient(error) || ++failures > TRANSIENT_FAILURES_TOLERATED) throw error;
      continue;
    }
    if (answer.kind === 'token') return answer.token;
    if (answer.kind === 'slow_down') interval = Math.max(answer.interval ?? 0, interval + SLOW_DOWN_SECONDS);
  }
  throw new NotAuthenticatedError('the code expired before the login was approved', 'run `mailverify login --web` again');
}

function minutes(seconds: number): string {
  const whole = Math.round(seconds / 60);
  return whole >= 1 ? `${whole} minute${whole === 1 ? '' : 's'}` : `${seconds} seconds`;
}

/**
 * Starts a device login for this machine, shows the code and the page (on stderr, even with
 * --quiet: the login cannot go on without them), opens the page when someone is at the terminal,
 * and polls for the token.
 */
export async function tokenFromBrowser(session: Session, options: { clientName: string; browser: boolean; sleep?: Sleep }): Promise<DeviceToken> {
  const { io } = session;
  const client = session.client({});
  const start = await client.startDeviceLogin(options.clientName);
  const open = shouldOpenBrowser(io, options.browser);
  const say = (line: string) => io.stderr.write(`${terminalSafe(line)}\n`);
  say(`First copy your one-time code: ${start.user_code}`);
  say(`Then approve it at ${start.verification_uri_complete}${open ? ' (opening it in your browser)' : ''}, signed in to the dashboard.`);
  say(`Waiting for approval; the code expires in ${minutes(start.expires_in)}.`);
  if (open) openBrowser(start.verification_uri_complete);
  return pollForToken(client, start, options.sleep ?? ((ms) => sleepFor(ms)));
}
