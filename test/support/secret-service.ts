import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A real Secret Service for one test file: gnome-keyring (Debian's, installed by
 * scripts/test-setup.sh) on a D-Bus session bus of its own, with HOME and the XDG dirs in a temp
 * dir, its login keyring unlocked with a password given on stdin. The bus has no service
 * directories, so nothing is ever started on it behind the test's back. `stop` ends both daemons.
 */
export interface SecretService {
  /** The environment a process needs to use it (the bus, HOME, XDG dirs). */
  env: NodeJS.ProcessEnv;
  /** `secret-tool lookup <attribute value>…`: the secret, or undefined when there is none. */
  lookup(attributes: Record<string, string>): Promise<string | undefined>;
  stop(): Promise<void>;
}

function busConfig(socket: string): string {
  return `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=${socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
`;
}

function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined) return;
  const exited = ended(child);
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
  await exited;
  clearTimeout(timer);
}

/** The bus's address, from the first line dbus-daemon prints. */
function addressOf(bus: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    bus.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0]!.trim());
    });
    bus.once('exit', (code) => reject(new Error(`dbus-daemon exited (${code}) before giving its address`)));
    bus.once('error', (error) => reject(new Error(`dbus-daemon: ${error.message} (npm run test:setup installs it)`)));
  });
}

export async function startSecretService(): Promise<SecretService> {
  const root = await mkdtemp(join(tmpdir(), 'mailverify-secret-service-'));
  const dirs = {
    HOME: join(root, 'home'),
    XDG_RUNTIME_DIR: join(root, 'run'),
    XDG_DATA_HOME: join(root, 'data'),
    XDG_CONFIG_HOME: join(root, 'config'),
    XDG_CACHE_HOME: join(root, 'cache'),
  };
  await Promise.all(Object.values(dirs).map((dir) => mkdir(dir, { mode: 0o700 })));
  await writeFile(join(root, 'bus.conf'), busConfig(join(root, 'bus')));

  let bus: ChildProcess | undefined;
  let keyring: ChildProcess | undefined;
  const stop = async () => {
    await stopChild(keyring);
    await stopChild(bus);
    await rm(root, { recursive: true, force: true });
  };
  try {
    bus = spawn('dbus-daemon', [`--config-file=${join(root, 'bus.conf')}`, '--nofork', '--print-address=1'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const env = { ...dirs, PATH: process.env.PATH, DBUS_SESSION_BUS_ADDRESS: await addressOf(bus) };
    keyring = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
    // The login keyring's password (it is made with it, then unlocked), on stdin as PAM would give it.
    keyring.stdin!.on('error', () => undefined); // a daemon that did not start: said below
    keyring.stdin!.end('test-keyring-password');
    let failed: Error | undefined;
    keyring.once('error', (error) => (failed = new Error(`gnome-keyring-daemon: ${error.message} (npm run test:setup installs it)`)));
    const lookup = async (attributes: Record<string, string>) => {
      try {
        const { stdout } = await run('secret-tool', ['lookup', ...Object.entries(attributes).flat()], { env });
        return stdout;
      } catch {
        return undefined; // exit 1: no such secret
      }
    };
    // secret-tool fails while no Secret Service owns its name on the bus, and succeeds (finding nothing) after.
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await run('secret-tool', ['search', '--all', 'service', 'mailverify-test-ready'], { env });
        break;
      } catch (error) {
        if (failed !== undefined) throw failed;
        if (Date.now() > deadline) throw new Error(`gnome-keyring did not come up on the test bus: ${(error as Error).message}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    return { env, lookup, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
