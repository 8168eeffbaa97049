/**
 * A real DNS server on loopback (dns2, UDP and TCP on the same ephemeral port) with programmable
 * zones, for pointing the engine's `dnsServers` at. It counts every query it receives, so tests
 * can prove caching ("at most 10 MX lookups").
 *
 * Semantics, per queried name (case-insensitive, trailing dot ignored):
 * - not in the zones → NXDOMAIN
 * - present, no record of the asked type → NODATA (NOERROR with an empty answer)
 * - `rcode: 'SERVFAIL'` (or 'NXDOMAIN') → that rcode, no answer
 * - `drop: true` → never answered (the client times out)
 * - `delayMs` → answered after that long (overrides the server-wide `latencyMs`)
 * A null MX (RFC 7505) is `{ type: 'MX', exchange: '', priority: 0 }`, sent as ".".
 *
 * Like every truthful resolver it knows the big providers' MX records (the engine asks for them
 * before it believes an NXDOMAIN; see src/engine/dns/sanity.ts), unless the zones say otherwise or
 * `truthful: false` makes it a lying one that denies every name it was not given.
 */
import dgram from 'node:dgram';
import type net from 'node:net';
import { Packet, createTCPServer, createUDPServer } from 'dns2';
import type { DnsHandler, Resource, TCPServer, UDPServer } from 'dns2';
import { RESOLVER_CANARIES } from '../../src/engine/dns/sanity.js';

export type RecordSpec =
  | { type: 'A'; address: string }
  | { type: 'AAAA'; address: string }
  | { type: 'MX'; exchange: string; priority: number }
  | { type: 'TXT'; data: string | string[] }
  /** Reverse DNS: set on the `in-addr.arpa` (or `ip6.arpa`) name of an address. */
  | { type: 'PTR'; domain: string };

export interface ZoneBehaviour {
  records?: RecordSpec[];
  rcode?: 'NOERROR' | 'NXDOMAIN' | 'SERVFAIL';
  drop?: boolean;
  delayMs?: number;
}

export interface DnsServerOptions {
  /** Delay of every answer, to model a resolver on the other side of a network. */
  latencyMs?: number;
  /** Loopback address to bind; 127.0.0.1 unless given. */
  host?: string;
  /** false: no MX records for the providers' domains either (a captive portal's resolver). */
  truthful?: boolean;
}

/** What the providers' MX hosts are called; they resolve to nothing here, and nothing connects to them. */
const PROVIDER_ZONES: Record<string, ZoneBehaviour> = Object.fromEntries(
  RESOLVER_CANARIES.map((domain) => [domain, { records: [{ type: 'MX', exchange: `mx.${domain}`, priority: 10 }] }]),
);

export interface DnsFixture {
  /** `"127.0.0.1:PORT"`, ready for the engine's `dnsServers`. */
  server: string;
  host: string;
  port: number;
  set(name: string, behaviour: ZoneBehaviour): void;
  /** Queries received (answered or not), optionally only for one name and/or one type ('MX', 'A', ...). */
  queryCount(name?: string, type?: string): number;
  resetCounts(): void;
  close(): Promise<void>;
}

const TTL_SECONDS = 300;
const PORT_ATTEMPTS = 20;

const TYPE_NAMES = new Map<number, string>(Object.entries(Packet.TYPE).map(([typeName, code]) => [code, typeName]));

function normaliseName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

function toResource(name: string, spec: RecordSpec): Resource {
  const { type, ...fields } = spec;
  return { name, type: Packet.TYPE[type], class: Packet.CLASS.IN, ttl: TTL_SECONDS, ...fields } as Resource;
}

function answerFor(request: Packet, behaviour: ZoneBehaviour | undefined): Packet {
  const response = Packet.createResponseFromRequest(request);
  response.header.aa = 1;
  response.header.ra = 1;
  const question = request.questions[0];
  if (!question) return response;
  if (!behaviour) {
    response.header.rcode = 3; // NXDOMAIN
    return response;
  }
  if (behaviour.rcode === 'NXDOMAIN' || behaviour.rcode === 'SERVFAIL') {
    response.header.rcode = behaviour.rcode === 'NXDOMAIN' ? 3 : 2;
    return response;
  }
  const askedType = TYPE_NAMES.get(question.type);
  for (const spec of behaviour.records ?? []) {
    if (spec.type === askedType) response.answers.push(toResource(question.name, spec));
  }
  return response;
}

/** Bind UDP and TCP on one ephemeral port (resolvers fall back to TCP on the UDP port). */
async function listenOnOnePort(host: string, handle: DnsHandler): Promise<{ udp: UDPServer; tcp: TCPServer; port: number }> {
  for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
    const port = await freeUdpPort(host);
    // Fresh servers per attempt: a socket whose bind failed cannot be bound again.
    const udp = createUDPServer(handle);
    const tcp = createTCPServer(handle);
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(port, host, () => resolve());
      });
      await new Promise<void>((resolve, reject) => {
        udp.once('error', reject);
        udp.bind(port, host, () => resolve());
      });
      tcp.removeAllListeners('error');
      udp.removeAllListeners('error');
      return { udp, tcp, port };
    } catch {
      closeQuietly(tcp, udp);
    }
  }
  throw new Error(`no port free for both UDP and TCP on ${host} after ${PORT_ATTEMPTS} attempts`);
}

function closeQuietly(tcp: TCPServer, udp: UDPServer): void {
  if (tcp.listening) tcp.close();
  try {
    udp.close();
  } catch {
    // never bound: nothing to close
  }
}

async function freeUdpPort(host: string): Promise<number> {
  const probe = dgram.createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.bind(0, host, () => resolve());
  });
  const { port } = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export async function startDnsServer(zones: Record<string, ZoneBehaviour> = {}, options: DnsServerOptions = {}): Promise<DnsFixture> {
  const host = options.host ?? '127.0.0.1';
  const latencyMs = options.latencyMs ?? 0;
  const known = options.truthful === false ? zones : { ...PROVIDER_ZONES, ...zones };
  const behaviours = new Map(Object.entries(known).map(([name, b]) => [normaliseName(name), b]));
  const counts = new Map<string, number>();
  const pendingTimers = new Set<NodeJS.Timeout>();
  const tcpSockets = new Set<net.Socket>();

  const handle: DnsHandler = (request, send) => {
    const question = request.questions[0];
    const name = normaliseName(question?.name ?? '');
    const type = TYPE_NAMES.get(question?.type ?? 0) ?? String(question?.type);
    const key = `${name} ${type}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);

    const behaviour = behaviours.get(name);
    if (behaviour?.drop) return;
    const reply = (): void => {
      // The socket may be gone by the time a delayed answer is ready; a lost answer is fine then.
      Promise.resolve()
        .then(() => send(answerFor(request, behaviour)))
        .catch(() => undefined);
    };
    const delay = behaviour?.delayMs ?? latencyMs;
    if (delay <= 0) return reply();
    const timer = setTimeout(() => {
      pendingTimers.delete(timer);
      reply();
    }, delay);
    pendingTimers.add(timer);
  };

  const { udp, tcp, port } = await listenOnOnePort(host, handle);
  // net.Server.close waits for open connections, and a dropped query keeps one open: track them.
  tcp.on('connection', (socket: net.Socket) => {
    tcpSockets.add(socket);
    socket.once('close', () => tcpSockets.delete(socket));
  });

  return {
    server: `${host}:${port}`,
    host,
    port,
    set(name, behaviour) {
      behaviours.set(normaliseName(name), behaviour);
    },
    queryCount(name, type) {
      const wantedName = name === undefined ? undefined : normaliseName(name);
      const wantedType = type?.toUpperCase();
      let total = 0;
      for (const [key, count] of counts) {
        const [keyName, keyType] = key.split(' ');
        if (wantedName !== undefined && keyName !== wantedName) continue;
        if (wantedType !== undefined && keyType !== wantedType) continue;
        total += count;
      }
      return total;
    },
    resetCounts() {
      counts.clear();
    },
    async close() {
      for (const timer of pendingTimers) clearTimeout(timer);
      pendingTimers.clear();
      for (const socket of tcpSockets) socket.destroy();
      await Promise.all([new Promise<void>((resolve) => udp.close(() => resolve())), new Promise<void>((resolve) => tcp.close(() => resolve()))]);
    },
  };
}
