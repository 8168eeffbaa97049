/**
 * `mailverify doctor`'s engine half: can this host verify addresses at all? Each check says ok or
 * what is wrong and what to do, in one sentence. The resolver (does it tell the truth), outbound
 * SMTP (do well-known mail hosts answer), the names we announce (HELO, MAIL FROM) and the proxy.
 */
import { Resolver } from 'node:dns/promises';
import { checkFormat } from './checks/format.js';
import { mailTargets } from './checks/check-hosts.js';
import { findMailRoute } from './checks/mail-route.js';
import { describeDnsFailure, DnsClient } from './dns/resolver.js';
import { checkResolver, RESOLVER_CANARIES, untruthfulResolverReason } from './dns/sanity.js';
import { dialerFor, DialError, type Dialer } from './net/egress.js';
import { egressPool, type Egress } from './net/egress-pool.js';
import { describeProxy } from './net/proxy-url.js';
import { blockedPortReason, type CheckTarget } from './net/port25.js';
import { SmtpConnection } from './smtp/connection.js';
import { SmtpError } from './smtp/errors.js';
import type { EngineOptions } from './core/types.js';

export type DiagnosisStatus = 'ok' | 'problem' | 'skipped';

export interface Diagnosis {
  check: string;
  status: DiagnosisStatus;
  detail: string;
}

export interface DiagnoseOptions {
  /** Mail hosts (names or addresses) to try port 25 on; by default the providers' MX hosts. */
  mailHosts?: readonly string[];
}

const ok = (check: string, detail: string): Diagnosis => ({ check, status: 'ok', detail });
const problem = (check: string, detail: string): Diagnosis => ({ check, status: 'problem', detail });
const skipped = (check: string, detail: string): Diagnosis => ({ check, status: 'skipped', detail });

async function diagnoseResolver(dns: DnsClient, servers: readonly string[]): Promise<Diagnosis> {
  const sanity = await checkResolver(dns);
  const which = servers.length > 0 ? servers.join(', ') : 'the system resolver';
  if (sanity.truthful) return ok('dns', `${which} answers truthfully (${RESOLVER_CANARIES.join(', ')} have MX records)`);
  return problem('dns', `${which}: ${untruthfulResolverReason(sanity)}`);
}

/**
 * Connects and reads the greeting within the connect timeout as a whole (a port that takes the
 * connection and never greets, or resets it late, must not hold doctor for a command timeout): the
 * first words of an SMTP server, or why there were none.
 */
async function greeting(dial: Dialer, address: string, options: EngineOptions): Promise<{ line: string } | { error: string; timedOut: boolean }> {
  const deadline = Date.now() + options.connectTimeoutMs;
  let timedOut = false;
  const noticingTimeouts: Dialer = (...args) =>
    dial(...args).catch((error: unknown) => {
      timedOut = error instanceof DialError && error.timedOut;
      throw error;
    });
  try {
    const connection = await SmtpConnection.connect(address, options.smtpPort, options.connectTimeoutMs, noticingTimeouts);
    try {
      const reply = await connection.readReply(Math.max(1, Math.min(options.commandTimeoutMs, deadline - Date.now())));
      return { line: reply.line };
    } finally {
      // Polite, but not waited for: no slot is held here, and the hang-up may come after we are done.
      void connection.quit();
    }
  } catch (error) {
    if (!(error instanceof SmtpError)) throw error;
    return { error: error.message, timedOut: timedOut || error.kind === 'timeout' };
  }
}

async function diagnoseSmtpPort(dial: Dialer, targets: readonly CheckTarget[], options: EngineOptions): Promise<Diagnosis> {
  const check = `port ${options.smtpPort}`;
  const usable = targets.filter((target): target is { host: string; address: string } => 'address' in target);
  if (usable.length === 0) {
    const why = targets.map((target) => `${target.host}: ${'unusable' in target ? target.unusable : ''}`).join('; ');
    // Not a finding about port 25: it was never tried. DNS has its own line.
    return {
      check,
      status: 'skipped',
      detail: `not tried: no mail host to try (${why || 'the resolver gave no MX host for the providers'}); fix DNS first, or name hosts with --mx-host`,
    };
  }
  const answers = await Promise.all(usable.map((target) => greeting(dial, target.address, options)));
  const answered = answers.findIndex((answer) => 'line' in answer);
  if (answered !== -1) {
    const target = usable[answered]!;
    return ok(check, `${target.host} (${target.address}) answered: ${(answers[answered] as { line: string }).line}`);
  }
  const failures = answers.map((answer, index) => `${usable[index]!.host}: ${(answer as { error: string }).error}`).join('; ');
  if (answers.every((answer) => 'timedOut' in answer && answer.timedOut)) {
    return problem(check, blockedPortReason(options.smtpPort, `no mail host answered (${failures})`));
  }
  // Resets and refusals from every well-known host are how many networks block the port too.
  return problem(
    check,
    `no mail host answered: ${failures}; if this network blocks port ${options.smtpPort}, use --proxy or run where port ${options.smtpPort} is open`,
  );
}

/** Each proxy of the pool, through its own dialer: one line, a problem if any proxy fails. */
async function diagnoseProxy(egresses: readonly Egress[], options: EngineOptions, targets: readonly CheckTarget[]): Promise<Diagnosis> {
  const proxied = egresses.filter((egress) => egress.settings.proxy !== null);
  if (proxied.length === 0) return skipped('proxy', 'not set: SMTP connections go out directly');
  const target = targets.find((each): each is { host: string; address: string } => 'address' in each);
  const findings = await Promise.all(
    proxied.map(async (egress): Promise<Diagnosis> => {
      const proxy = egress.settings.proxy!;
      const name = `${describeProxy(proxy)}${proxy.username === undefined ? '' : ' (with username and password)'}`;
      if (!target) return problem('proxy', `${name} cannot be tried: no mail host address to ask it for`);
      try {
        const socket = await dialerFor(egress)(target.address, options.smtpPort, options.connectTimeoutMs);
        socket.destroy();
        return ok('proxy', `${name} relays to ${target.host} (${target.address}) port ${options.smtpPort}`);
      } catch (error) {
        return problem('proxy', (error as Error).message);
      }
    }),
  );
  return {
    check: 'proxy',
    status: findings.some((each) => each.status === 'problem') ? 'problem' : 'ok',
    detail: findings.map((each) => each.detail).join('; '),
  };
}

async function diagnoseHelo(dns: DnsClient, heloName: string): Promise<Diagnosis> {
  const format = checkFormat(`helo@${heloName}`);
  if (!format.ok || format.addressLiteral !== null) {
    return problem(
      'helo',
      `"${heloName}" is not a fully-qualified domain name, and many servers refuse such an EHLO; set --helo <name> to a name of this host with an A record`,
    );
  }
  const answer = await dns.addresses(format.asciiDomain);
  if (!answer.ok) {
    return problem(
      'helo',
      `${heloName} has no A/AAAA record (DNS ${describeDnsFailure(answer.failure)}), and many servers refuse such an EHLO; set --helo <name> to a name of this host with an A record`,
    );
  }
  return ok('helo', `${heloName} resolves to ${answer.records.slice(0, 2).join(', ')}`);
}

async function diagnoseMailFrom(dns: DnsClient, mailFrom: string): Promise<Diagnosis> {
  const format = checkFormat(mailFrom);
  if (!format.ok || format.addressLiteral !== null) return problem('mail from', `"${mailFrom}" is not an address with a domain; set --mail-from <address>`);
  const route = await findMailRoute(dns, format.asciiDomain);
  if (route.kind === 'mx' || route.kind === 'implicit-mx')
    return ok('mail from', `${mailFrom}: its domain takes mail (${route.kind === 'mx' ? 'MX' : 'A/AAAA'})`);
  return problem(
    'mail from',
    `${mailFrom}: its domain takes no mail (${route.kind}), and many servers refuse senders they cannot answer; set --mail-from <address> at a domain of yours`,
  );
}

/** The retry schedule in words: a setting, not a check, shown so that an operator sees how long jobs may wait. */
function describeRetrySchedule(schedule: readonly number[]): Diagnosis {
  if (schedule.length === 0) return ok('retry schedule', 'off: temporary answers (greylisting, throttling) settle unknown at once (--retry-schedule none)');
  const times = schedule.map((ms) => (ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1_000}s`)).join(', ');
  return ok('retry schedule', `temporary answers (greylisting, throttling) in jobs are asked again ${times} after the first (--retry-schedule)`);
}

/** Every engine-side check, in the order a user would fix them. */
export async function diagnoseNetwork(options: EngineOptions, diagnose: DiagnoseOptions = {}): Promise<Diagnosis[]> {
  const dns = new DnsClient({ servers: options.dnsServers, timeoutMs: options.dnsTimeoutMs });
  const servers = options.dnsServers.length > 0 ? options.dnsServers : new Resolver().getServers();
  const egresses = egressPool(options);
  // Port 25 is tried through the first egress; each proxy has its own line below.
  const dial = dialerFor(egresses[0]!);
  const targets = await mailTargets(dns, options, diagnose.mailHosts);
  return Promise.all([
    diagnoseResolver(dns, servers),
    diagnoseSmtpPort(dial, targets, options),
    diagnoseHelo(dns, options.heloName),
    diagnoseMailFrom(dns, options.mailFrom),
    diagnoseProxy(egresses, options, targets),
    describeRetrySchedule(options.retryScheduleMs),
  ]);
}
