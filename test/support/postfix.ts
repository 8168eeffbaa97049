/**
 * The Postfix fixture (test/support/postfix/, set up by setup.sh there): where it answers, whether
 * it does, and what its log says about who connected.
 */
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { createVerifier } from '../../src/engine/index.js';
import type { EngineHooks, EngineOptions, Verifier } from '../../src/engine/core/types.js';

export const MX_HOST = '127.0.0.25';
export const DNS_SERVER = '127.0.0.53:5353';
/** The client addresses Postfix refuses as blocklisted (blocked_clients beside setup.sh). */
export const BLOCKED_CLIENTS = ['127.0.0.77', '127.0.0.78'] as const;
const LOG_FILE = '/var/log/postfix-mailverify.log';
const PROBE_TIMEOUT_MS = 2_000;

/** Why the fixture cannot be used, or undefined when both its DNS and its SMTP server answer. */
export async function postfixProblem(): Promise<string | undefined> {
  const resolver = new Resolver({ timeout: PROBE_TIMEOUT_MS, tries: 1 });
  resolver.setServers([DNS_SERVER]);
  try {
    const mx = await resolver.resolveMx('mailbox.test');
    if (mx[0]?.exchange !== 'mx.mailbox.test') return `dnsmasq on ${DNS_SERVER} gave MX ${JSON.stringify(mx)}`;
  } catch (error) {
    return `dnsmasq on ${DNS_SERVER} does not answer (${(error as Error).message})`;
  }
  return new Promise((resolve) => {
    const socket = connect({ host: MX_HOST, port: 25, timeout: PROBE_TIMEOUT_MS });
    const done = (problem?: string) => {
      socket.destroy();
      resolve(problem);
    };
    socket.once('data', (greeting) => done(greeting.toString().startsWith('220') ? undefined : `Postfix greeted with ${greeting.toString()}`));
    socket.once('timeout', () => done(`Postfix on ${MX_HOST}:25 sent no greeting`));
    socket.once('error', (error) => done(`Postfix on ${MX_HOST}:25: ${error.message}`));
  });
}

/** Postfix's log from now on: the connections it logs from a client address (it logs them a moment late). */
export function postfixLogFromNow(): { connectionsFrom(client: string): Promise<number> } {
  const start = statSync(LOG_FILE).size;
  const count = (client: string) =>
    readFileSync(LOG_FILE)
      .subarray(start)
      .toString()
      .split('\n')
      .filter((line) => line.includes(`connect from unknown[${client}]`) && !line.includes('disconnect')).length;
  return {
    async connectionsFrom(client) {
      // postlogd writes a little after the fact: wait until two reads a while apart agree.
      for (let last = -1; ;) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        const now = count(client);
        if (now === last) return now;
        last = now;
      }
    },
  };
}

/**
 * The fixture as the CLI's engine flags: its resolver, port 25, our HELO name, and a sender of its
 * own (postgrey greylists each sender afresh, see postfixVerifier).
 */
export function postfixEngineArgs(): string[] {
  return [
    '--dns-server',
    DNS_SERVER,
    '--smtp-port',
    '25',
    '--helo',
    'probe.verifier.test',
    '--mail-from',
    `probe.x${randomBytes(6).toString('hex')}z@verifier.test`,
  ];
}

/**
 * A verifier aimed at the fixture. Every verifier gets its own envelope sender, because postgrey
 * greylists (client, sender, recipient) triplets and remembers the ones that passed: a sender
 * never seen before makes grey@mailbox.test greylisted again on every run. Letters, not digits:
 * postgrey folds all-digit words of a sender together.
 */
export function postfixVerifier(options: Partial<EngineOptions>, hooks: EngineHooks = {}): Verifier {
  return createVerifier(
    {
      dnsServers: [DNS_SERVER],
      smtpPort: 25,
      allowPrivateNetworks: true,
      webCheck: false,
      heloName: 'probe.verifier.test',
      mailFrom: `probe.x${randomBytes(6).toString('hex')}z@verifier.test`,
      connectTimeoutMs: 5_000,
      commandTimeoutMs: 5_000,
      ...options,
    },
    hooks,
  );
}
