import { isDefiniteFailure, type DnsClient, type DnsFailure } from '../dns/resolver.js';

/**
 * The `domainExists` and `hasMx` checks: where mail for a domain goes, by RFC 5321 §5.1 (MX
 * hosts in preference order, else the domain's own A/AAAA as implicit MX) and RFC 7505 (null MX).
 */
export type MailRoute =
  | { kind: 'mx'; hosts: string[] }
  | { kind: 'implicit-mx'; hosts: [string] }
  | { kind: 'nxdomain' }
  | { kind: 'null-mx' }
  | { kind: 'no-mail-host' }
  | { kind: 'dns-failure'; failure: DnsFailure };

function hostName(exchange: string): string {
  return exchange.toLowerCase().replace(/\.$/, '');
}

export async function findMailRoute(dns: DnsClient, asciiDomain: string): Promise<MailRoute> {
  const mx = await dns.mx(asciiDomain);
  if (mx.ok) {
    // Sorting is stable: equal preferences keep the order the server gave.
    const hosts = [...mx.records].sort((a, b) => a.priority - b.priority).map((record) => hostName(record.exchange));
    const real = hosts.filter((host) => host !== '');
    return real.length > 0 ? { kind: 'mx', hosts: real } : { kind: 'null-mx' };
  }
  if (mx.failure === 'NXDOMAIN') return { kind: 'nxdomain' };
  if (!isDefiniteFailure(mx.failure)) return { kind: 'dns-failure', failure: mx.failure };

  const own = await dns.addresses(asciiDomain);
  if (own.ok) return { kind: 'implicit-mx', hosts: [asciiDomain] };
  if (own.failure === 'NXDOMAIN') return { kind: 'nxdomain' };
  return isDefiniteFailure(own.failure) ? { kind: 'no-mail-host' } : { kind: 'dns-failure', failure: own.failure };
}

export function domainExists(route: MailRoute): boolean {
  return route.kind !== 'nxdomain' && route.kind !== 'dns-failure';
}

/** At least one MX record that is not a null MX. */
export function hasMx(route: MailRoute): boolean {
  return route.kind === 'mx';
}
