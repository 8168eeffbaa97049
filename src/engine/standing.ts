/**
 * Our own standing on the network, per egress (docs/architecture.md "Egress"): is the address mail
 * hosts see us come from on the DNSBL zones, does its reverse DNS resolve back to it (FCrDNS), and
 * does its PTR name agree with our HELO name. Each finding says what to fix. `doctor` asks on
 * demand, `serve` and `worker` at start and every `--standing-interval`.
 *
 * The address is the source address when it is a public one of this host; otherwise (NAT, a
 * private or loopback source, a proxy, the system's choice) it is what the providers' mail hosts
 * (or `--mx-host`) say back to our EHLO, never what a host a customer chose says: a customer's
 * domain can point its MX at a host that names any address.
 */
import { askZone, IP_QUERIES_REFUSED, reversedName, reverseDnsName } from './checks/blacklist.js';
import { mailTargets } from './checks/check-hosts.js';
import type { Diagnosis, DiagnosisStatus } from './diagnose.js';
import { describeDnsFailure, DnsClient, isDefiniteFailure } from './dns/resolver.js';
import { SmtpSession } from './smtp/session.js';
import { SmtpError } from './smtp/errors.js';
import type { EngineOptions } from './core/types.js';
import { dialerFor } from './net/egress.js';
import { egressPool, type Egress } from './net/egress-pool.js';
import type { CheckTarget } from './net/port25.js';
import { isPrivateAddress } from './net/private-address.js';

/** The checks of an egress's standing, each one line of `doctor` (`<check> <egress>`). */
export type StandingCheck = 'blocklists' | 'reverse dns' | 'helo and ptr';

export interface EgressStanding {
  /** The egress (its key: the source address, the proxy without credentials, or `default`). */
  egress: string;
  /** The address mail hosts see, null when not known. */
  address: string | null;
  /** Per zone asked: listed or not; a zone that gave no answer (or lists domains only) is absent. */
  listed: Record<string, boolean>;
  /** What each check found; empty when the address is not known. */
  checks: Partial<Record<StandingCheck, DiagnosisStatus>>;
  /** One line per check, `<check> <egress>`, with its fix; one `standing <egress>` line when the address is not known. */
  findings: Diagnosis[];
}

/** Where to ask a list to take an address off, for the lists an operator is likeliest to meet. */
const REMOVAL_PAGES: [suffix: string, url: string][] = [
  ['spamhaus.org', 'https://check.spamhaus.org/'],
  ['spamcop.net', 'https://www.spamcop.net/bl.shtml'],
  ['barracudacentral.org', 'https://www.barracudacentral.org/rbl/removal-request'],
  ['sorbs.net', 'https://www.sorbs.net/delisting/'],
  ['psbl.surriel.com', 'https://psbl.org/'],
  ['mailspike.net', 'https://mailspike.org/iplookup.html'],
  ['uceprotect.net', 'https://www.uceprotect.net/en/rblcheck.php'],
];

function removalPage(zone: string): string {
  const known = REMOVAL_PAGES.find(([suffix]) => zone === suffix || zone.endsWith(`.${suffix}`));
  return known ? known[1] : `the removal page of ${zone}'s operator`;
}

const sameName = (a: string, b: string) => a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '');

/** The address mail hosts see from this egress, and who said so; or why it is not known. */
async function publicAddress(
  egress: Egress,
  targets: readonly CheckTarget[],
  options: EngineOptions,
): Promise<{ address: string; seenBy: string | null } | { unknown: string }> {
  if (egress.proxy === null && egress.sourceAddress !== null && !isPrivateAddress(egress.sourceAddress)) return { address: egress.sourceAddress, seenBy: null };
  const usable = targets.filter((target): target is { host: string; address: string } => 'address' in target);
  if (usable.length === 0) return { unknown: 'no mail host to ask (fix DNS first, or name hosts with --mx-host)' };
  const dial = dialerFor(egress);
  const session = {
    port: options.smtpPort,
    heloName: options.heloName,
    mailFrom: options.mailFrom,
    connectTimeoutMs: options.connectTimeoutMs,
    commandTimeoutMs: options.commandTimeoutMs,
    startTls: false,
    dial,
  };
  const answers = await Promise.all(
    usable.map((target) =>
      SmtpSession.introduce({ address: target.address, hostname: target.host }, session).then(
        ({ seenAs }) => ({ seenAs }),
        (error: unknown) => {
          if (error instanceof SmtpError) return { failed: error.message };
          throw error;
        },
      ),
    ),
  );
  const said = answers.findIndex((answer) => 'seenAs' in answer && answer.seenAs !== null);
  if (said !== -1) return { address: (answers[said] as { seenAs: string }).seenAs, seenBy: usable[said]!.host };
  // Why each host said nothing: a host that answered without naming us, or one we could not talk to (the port, the proxy).
  const asked = usable.map((target, index) => {
    const answer = answers[index]!;
    return 'failed' in answer ? `${target.host}: ${answer.failed}` : target.host;
  });
  return { unknown: `no mail host said it back (asked ${asked.join('; ')})` };
}

async function blocklists(
  dns: DnsClient,
  address: string,
  subject: string,
  zones: readonly string[],
): Promise<{ listed: Record<string, boolean>; finding: Omit<Diagnosis, 'check'> }> {
  const name = reversedName(address)!;
  const answers = await Promise.all(zones.map(async (zone) => ({ zone, answer: await askZone(dns, zone, name) })));
  const listed: Record<string, boolean> = {};
  const on: string[] = [];
  const unsure: string[] = [];
  const domainLists: string[] = [];
  for (const { zone, answer } of answers) {
    if (answer.listed === null) {
      if (answer.answers.includes(IP_QUERIES_REFUSED)) domainLists.push(zone);
      else
        unsure.push(
          `${zone} gave no answer (${answer.answers.length > 0 ? `${answer.answers.join(', ')}: the list refuses the query, as lists do when asked through a public or shared resolver or over their free limit; ask through a resolver of your own` : answer.failure})`,
        );
      continue;
    }
    listed[zone] = answer.listed;
    if (answer.listed) on.push(`${zone} (${answer.answers.join(', ')}): request delisting at ${removalPage(zone)}`);
  }
  const notes = [...unsure, ...(domainLists.length > 0 ? [`${domainLists.join(', ')} list${domainLists.length === 1 ? 's' : ''} domains, not addresses`] : [])];
  const also = notes.length > 0 ? `; ${notes.join('; ')}` : '';
  if (on.length > 0)
    return { listed, finding: { status: 'problem', detail: `${subject} is listed in ${on.join('; ')}. Providers that use a list refuse mail from it${also}` } };
  const clear = Object.keys(listed);
  if (clear.length === 0) return { listed, finding: { status: 'skipped', detail: `${subject}: no list answered${also}` } };
  return { listed, finding: { status: 'ok', detail: `${subject} is on none of ${clear.join(', ')}${also}` } };
}

/** The PTR names of `address` and those of them that resolve back to it. */
async function reverseDns(dns: DnsClient, address: string, heloName: string): Promise<{ names: string[]; finding: Omit<Diagnosis, 'check'> }> {
  const ptr = await dns.ptr(reverseDnsName(address)!);
  const setPtr = `ask your provider (whoever owns ${address}) to set a PTR for ${address} to a name that resolves back to it, such as your HELO name ${heloName}`;
  if (!ptr.ok) {
    if (!isDefiniteFailure(ptr.failure))
      return { names: [], finding: { status: 'skipped', detail: `${address}: the PTR lookup failed (DNS ${describeDnsFailure(ptr.failure)})` } };
    return { names: [], finding: { status: 'problem', detail: `${address} has no PTR record, and many servers refuse mail from such an address; ${setPtr}` } };
  }
  const names = ptr.records;
  const forward = await Promise.all(names.map((name) => dns.addresses(name)));
  const back = names.filter((_, index) => forward[index]!.ok && (forward[index] as { records: string[] }).records.includes(address));
  if (back.length > 0) return { names, finding: { status: 'ok', detail: `${address} → ${back[0]} → ${address}` } };
  const where = names.map((name, index) => {
    const answer = forward[index]!;
    return `${name} resolves to ${answer.ok ? answer.records.join(', ') : describeDnsFailure(answer.failure)}`;
  });
  return {
    names,
    finding: {
      status: 'problem',
      detail: `${address}'s PTR does not resolve back to it (${where.join('; ')}); ${setPtr}, or give ${names[0]} an A record for ${address}`,
    },
  };
}

function heloAndPtr(address: string, names: readonly string[], heloName: string): Omit<Diagnosis, 'check'> {
  if (names.length === 0) return { status: 'skipped', detail: `${address} has no PTR name to compare with the HELO name ${heloName} (see reverse dns)` };
  if (names.some((name) => sameName(name, heloName))) return { status: 'ok', detail: `the HELO name ${heloName} is ${address}'s PTR name` };
  return {
    status: 'problem',
    detail: `the HELO name ${heloName} is not ${address}'s PTR name (${names.join(', ')}), and many servers refuse or mark down such mail; set --helo ${names[0]} (if it resolves back to ${address}), or have the PTR set to ${heloName}`,
  };
}

async function standingOf(dns: DnsClient, egress: Egress, targets: readonly CheckTarget[], options: EngineOptions): Promise<EgressStanding> {
  const found = await publicAddress(egress, targets, options);
  if ('unknown' in found) {
    const detail = `the address mail hosts see from ${egress.key} is not known: it is no public address of this host and ${found.unknown}; blocklists and reverse DNS not checked`;
    return { egress: egress.key, address: null, listed: {}, checks: {}, findings: [{ check: `standing ${egress.key}`, status: 'skipped', detail }] };
  }
  const { address, seenBy } = found;
  const subject = seenBy === null ? address : `${address} (as ${seenBy} said back)`;
  const [lists, reverse] = await Promise.all([blocklists(dns, address, subject, options.dnsblZones), reverseDns(dns, address, options.heloName)]);
  const results: [StandingCheck, Omit<Diagnosis, 'check'>][] = [
    ['blocklists', lists.finding],
    ['reverse dns', reverse.finding],
    ['helo and ptr', heloAndPtr(address, reverse.names, options.heloName)],
  ];
  return {
    egress: egress.key,
    address,
    listed: lists.listed,
    checks: Object.fromEntries(results.map(([check, finding]) => [check, finding.status])),
    findings: results.map(([check, finding]) => ({ check: `${check} ${egress.key}`, ...finding })),
  };
}

/** The standing of every egress of the options' pool, asking `mailHosts` (else the providers' mail hosts) for the address they see. */
export async function checkStanding(options: EngineOptions, mailHosts?: readonly string[]): Promise<EgressStanding[]> {
  const dns = new DnsClient({ servers: options.dnsServers, timeoutMs: options.dnsTimeoutMs });
  const targets = await mailTargets(dns, options, mailHosts);
  return Promise.all(egressPool(options).map((egress) => standingOf(dns, egress, targets, options)));
}
