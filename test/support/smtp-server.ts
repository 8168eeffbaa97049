/**
 * Real SMTP servers (the `smtp-server` package) on 127.0.0.x with programmable behaviour, for the
 * engine's RCPT TO probe. Every reply line below is the text a real MTA sends (Postfix, postgrey,
 * Spamhaus via Postfix), so the engine's reply table is tested against realistic input.
 *
 * The engine uses one SMTP port for every MX host, so tests put several fixtures on different
 * 127.0.0.x hosts and one shared port from `freePort([...hosts])`.
 */
import net from 'node:net';
import { readFileSync } from 'node:fs';
import { SMTPServer } from 'smtp-server';
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';
import type { SMTPServerAddress, SMTPServerOptions, SMTPServerSession } from 'smtp-server';

export interface SmtpFixtureOptions {
  /** A 127.0.0.x address; 127.0.0.1 unless given. */
  host?: string;
  /** Port to listen on; an ephemeral one unless given. */
  port?: number;
  /** Host name in the greeting and EHLO reply. */
  name?: string;
  /** Addresses that exist (case-insensitive, unless `caseSensitive`); every other RCPT gets 550 5.1.1. */
  mailboxes?: string[];
  /** `mailboxes` match only a local part in the case given (a server may tell `Ann@` from `ann@`, RFC 5321 §2.4); the domain in any case. */
  caseSensitive?: boolean;
  /** The text of the 550 for unknown recipients (Postfix's 5.1.1 line unless given): hostile text for output tests. */
  unknownUserText?: string;
  /** Accept every RCPT. */
  catchAll?: boolean;
  /** Addresses (case-insensitive) answered with a whole reply line of a real server, sent as is: `550 5.2.1 ...`. */
  replies?: Record<string, string>;
  /** The first `times` RCPTs per address (only `addresses` if given) get postgrey's 450 4.2.0. */
  greylist?: { times: number; addresses?: string[] };
  /** Every RCPT gets Postfix's DNSBL rejection, 554 5.7.1. */
  block?: boolean;
  /** RCPTs to these addresses get 421 4.7.0 and the session is closed (a server shedding load). */
  closeSessionAt?: string[];
  /** The same rejection as the greeting, then the connection is closed. */
  blockGreeting?: boolean;
  /** `blockGreeting` for these client addresses only (a listed source address of ours among others). */
  blockGreetingFrom?: string[];
  /** Every RCPT from these client addresses, postmaster's too, gets `text` (after a 550): a refusal of the sender. */
  refuseFrom?: { clients: string[]; text: string };
  /** Delay before the greeting and before answering every command. */
  replyDelayMs?: number;
  /** Answer this many RCPTs in a session, then close the connection without a word. */
  dropAfterRcpts?: number;
  /** Close the connection at every RCPT, before answering it. */
  dropAtRcpt?: boolean;
  /** Accepted recipients per transaction; the next gets 452 4.5.3 (Postfix smtpd_recipient_limit). */
  maxRcptsPerSession?: number;
  /**
   * Postfix's error limits: once a session has had `soft` refused RCPTs, every reply is delayed by
   * `sleepMs` more (smtpd_soft_error_limit, smtpd_error_sleep_time); at `hard` refusals the next
   * RCPT gets 421 and the connection is closed (smtpd_hard_error_limit).
   */
  errorLimits?: { soft: number; sleepMs: number; hard?: number };
  /** Do not listen at all: connecting gets "connection refused". */
  refuse?: boolean;
  /** Accept the TCP connection and close it at once, before any greeting. */
  closeOnConnect?: boolean;
  /** Offer STARTTLS with the self-signed certificate in test/support/tls/ (CN mx.fixture.test). */
  starttls?: boolean;
  /** Count this fixture's sessions together with other fixtures' (a client's global limit spans hosts). */
  sessions?: SessionCounter;
}

export interface SmtpFixture {
  host: string;
  port: number;
  /** TCP connections accepted. */
  sessionCount(): number;
  /** The client address of every TCP connection accepted, in order. */
  clientAddresses(): string[];
  /** Most sessions in conversation at once (with the fixtures sharing its `sessions` counter). */
  peakSessions(): number;
  /** Most sessions in conversation at once at this fixture from one client address (a source address of the verifier's). */
  peakSessionsFrom(clientAddress: string): number;
  /** Refused RCPTs in each session that has ended, in the order they ended. */
  refusalsPerSession(): number[];
  /** RCPT TO commands received (answered any way), optionally for one address (case-insensitive). */
  rcptCount(address?: string): number;
  /** Every command line received, in order, across sessions (e.g. "EHLO probe.test", "RCPT TO:<a@b>"). */
  commands: string[];
  /** Forget counts, commands, greylist state and the peak of the sessions counter. */
  reset(): void;
  close(): Promise<void>;
}

const TLS_DIR = new URL('./tls/', import.meta.url);
const MESSAGE_SIZE_LIMIT = 10 * 1024 * 1024;
const ENHANCED_CODE_PREFIX = /^\d\.\d{1,3}\.\d{1,3} /;
const REPLY_LINE = /^(\d{3}) (.*)$/;
const RCPT_ADDRESS = /^RCPT TO:\s*<([^>]*)>/i;

/**
 * Addresses are compared as a mail server does: ASCII letters in any case, every other character
 * as sent (U+212A KELVIN SIGN is not `k`, though `toLowerCase()` makes it one).
 */
const foldCase = (address: string) => address.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/** The address as a case-sensitive server reads it: the local part as sent, the domain in any case. */
const foldDomain = (address: string) => {
  const at = address.lastIndexOf('@');
  return `${address.slice(0, at)}${foldCase(address.slice(at))}`;
};

/** An error whose reply code smtp-server sends as is. */
function smtpReply(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}

function blockedText(session: SMTPServerSession): string {
  return `5.7.1 Service unavailable; Client host [${session.remoteAddress}] blocked using zen.spamhaus.org`;
}

/**
 * Sessions in conversation at once, for proving a client's concurrency limits. A session counts
 * from its first command to its QUIT or hang-up, not from the TCP accept to the close: a client
 * that has said QUIT and moved on may open its next session before the server sees the old one
 * close, but it sends that session's first command only after a greeting round trip, by when the
 * QUIT has long been read.
 */
export class SessionCounter {
  private active = 0;
  private highest = 0;

  get peak(): number {
    return this.highest;
  }

  enter(): void {
    this.active += 1;
    this.highest = Math.max(this.highest, this.active);
  }

  leave(): void {
    this.active -= 1;
  }

  reset(): void {
    this.highest = this.active;
  }
}

/** State shared by one fixture's server and its connections. */
class FixtureState {
  readonly commands: string[] = [];
  readonly rcpts = new Map<string, number>();
  readonly greylistHits = new Map<string, number>();
  readonly sessionCounter: SessionCounter;
  /** `replies` by lower-cased address, as [code, text]. */
  readonly scripted: Map<string, [number, string]>;
  sessions = 0;
  readonly refusalsPerSession: number[] = [];
  readonly clients: string[] = [];
  /** Sessions in conversation at this fixture, per client address. */
  readonly fromClient = new Map<string, SessionCounter>();

  constructor(readonly options: SmtpFixtureOptions) {
    this.sessionCounter = options.sessions ?? new SessionCounter();
    this.scripted = new Map(
      Object.entries(options.replies ?? {}).map(([address, line]) => {
        const [, code, text] = REPLY_LINE.exec(line) ?? [];
        if (code === undefined || text === undefined) throw new Error(`not a reply line: ${line}`);
        return [foldCase(address), [Number(code), text]];
      }),
    );
  }

  /** Whether smtp-server must send `text` as is, without an enhanced code of its own. */
  isVerbatim(text: string): boolean {
    return ENHANCED_CODE_PREFIX.test(text) || [...this.scripted.values()].some(([, scripted]) => scripted === text);
  }

  reset(): void {
    this.commands.length = 0;
    this.rcpts.clear();
    this.greylistHits.clear();
    this.sessions = 0;
    this.refusalsPerSession.length = 0;
    this.clients.length = 0;
    this.sessionCounter.reset();
    for (const counter of this.fromClient.values()) counter.reset();
  }

  /** The counters a session from this client address counts in. */
  countersOf(clientAddress: string): SessionCounter[] {
    let counter = this.fromClient.get(clientAddress);
    if (!counter) this.fromClient.set(clientAddress, (counter = new SessionCounter()));
    return [this.sessionCounter, counter];
  }

  recordCommand(line: string): void {
    this.commands.push(line);
    const sent = RCPT_ADDRESS.exec(line)?.[1];
    const address = sent === undefined ? undefined : foldCase(sent);
    if (address !== undefined) this.rcpts.set(address, (this.rcpts.get(address) ?? 0) + 1);
  }

  /** The reply to a RCPT TO, as an error to reject with, or null to accept (250). */
  rcptVerdict(address: string, session: SMTPServerSession): Error | null {
    const { options } = this;
    const key = foldCase(address);
    if (options.block) return smtpReply(554, blockedText(session));
    if (options.refuseFrom?.clients.includes(session.remoteAddress)) return smtpReply(550, options.refuseFrom.text);
    // smtp-server closes the connection after any 421 it sends.
    if (options.closeSessionAt?.some((a) => foldCase(a) === key)) {
      return smtpReply(421, '4.7.0 Try again later, closing connection.');
    }
    const scripted = this.scripted.get(key);
    if (scripted) return smtpReply(...scripted);
    if (this.isGreylisted(key)) {
      const domain = key.split('@').pop() ?? '';
      return smtpReply(450, `4.2.0 <${address}>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/${domain}.html`);
    }
    const same = options.caseSensitive ? (m: string) => foldDomain(m) === foldDomain(address) : (m: string) => foldCase(m) === key;
    const exists = options.catchAll || (options.mailboxes ?? []).some(same);
    return exists ? null : smtpReply(550, options.unknownUserText ?? `5.1.1 <${address}>: Recipient address rejected: User unknown`);
  }

  private isGreylisted(key: string): boolean {
    const greylist = this.options.greylist;
    if (!greylist) return false;
    if (greylist.addresses && !greylist.addresses.some((a) => foldCase(a) === key)) return false;
    const hits = this.greylistHits.get(key) ?? 0;
    this.greylistHits.set(key, hits + 1);
    return hits < greylist.times;
  }
}

function later(delayMs: number, run: () => void): void {
  if (delayMs <= 0) return run();
  setTimeout(run, delayMs).unref();
}

/** A connection that records commands, delays replies and drops the session when told to. */
class FixtureConnection extends SMTPConnection {
  private rcptsInSession = 0;
  private refusals = 0;
  private answeringRcpt = false;
  private conversation: 'not yet' | 'on' | 'over' = 'not yet';

  constructor(
    server: SMTPServer,
    socket: net.Socket,
    private readonly state: FixtureState,
  ) {
    super(server, socket);
    socket.once('close', () => {
      this.endConversation();
      state.refusalsPerSession.push(this.refusals);
    });
  }

  private endConversation(): void {
    if (this.conversation === 'on') for (const counter of this.state.countersOf(this.remoteAddress)) counter.leave();
    this.conversation = 'over';
  }

  // smtp-server holds the greeting 100 ms to catch early talkers; real MX hosts mostly do not, and
  // the pause would blur latencies that tests and benchmarks set on purpose.
  override init(): void {
    this._setListeners(() => this.connectionReady());
  }

  override _onCommand(command: Buffer, callback?: () => void): void {
    const line = command.toString();
    this.state.recordCommand(line);
    if (this.conversation === 'not yet') {
      this.conversation = 'on';
      for (const counter of this.state.countersOf(this.remoteAddress)) counter.enter();
    }
    if (/^QUIT\b/i.test(line)) this.endConversation();
    const isRcpt = RCPT_ADDRESS.test(line);
    if (isRcpt && this.state.options.dropAtRcpt) {
      this._socket.destroy();
      return;
    }
    const limits = this.state.options.errorLimits;
    if (isRcpt && limits?.hard !== undefined && this.refusals >= limits.hard) {
      this._socket.end('421 4.7.0 mx.fixture.test Error: too many errors\r\n');
      return;
    }
    this.answeringRcpt = isRcpt;
    const dropAfter = this.state.options.dropAfterRcpts;
    const next = (): void => {
      if (isRcpt && dropAfter !== undefined && ++this.rcptsInSession >= dropAfter) {
        this._socket.destroy();
        return;
      }
      callback?.();
    };
    const sleepMs = limits && this.refusals >= limits.soft ? limits.sleepMs : 0;
    later((this.state.options.replyDelayMs ?? 0) + sleepMs, () => super._onCommand(command, next));
  }

  // Our reply texts carry their own enhanced status code (e.g. 4.2.0 where smtp-server would say
  // 4.2.1) or are a real server's line (`replies`): send those verbatim instead of letting
  // smtp-server prefix its default one.
  // smtp-server turns control characters in a reply into spaces; a hostile server sends them as they are.
  override send(code: number, data?: string | string[] | null, context?: string | false): void {
    if (this.answeringRcpt && code >= 400) this.refusals += 1;
    this.answeringRcpt = false;
    const hostile = this.state.options.unknownUserText;
    if (hostile !== undefined && data === hostile) {
      this._socket.write(`${code} ${hostile}\r\n`);
      return;
    }
    const ownCode = typeof data === 'string' && this.state.isVerbatim(data);
    super.send(code, data, ownCode ? false : context);
  }
}

/** The stock server's options: no AUTH, no reverse DNS, STARTTLS only when asked, our RCPT rules. */
function smtpServerOptions(state: FixtureState): SMTPServerOptions {
  const { options } = state;
  return {
    name: options.name ?? 'mx.fixture.test',
    logger: false,
    disableReverseLookup: true,
    authOptional: true,
    disabledCommands: options.starttls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    size: MESSAGE_SIZE_LIMIT,
    // Postfix advertises ENHANCEDSTATUSCODES and puts one on every reply; smtp-server hides them by default.
    hideENHANCEDSTATUSCODES: false,
    maxRecipients: options.maxRcptsPerSession ?? 0,
    closeTimeout: 100,
    ...(options.starttls ? { key: readFileSync(new URL('key.pem', TLS_DIR)), cert: readFileSync(new URL('cert.pem', TLS_DIR)) } : {}),
    onConnect(session, done) {
      const blocked = options.blockGreeting === true || options.blockGreetingFrom?.includes(session.remoteAddress) === true;
      const verdict = blocked ? smtpReply(554, blockedText(session)) : null;
      later(options.replyDelayMs ?? 0, () => done(verdict));
    },
    onMailFrom(_address, _session, done) {
      done();
    },
    onRcptTo(address: SMTPServerAddress, session, done) {
      done(state.rcptVerdict(address.address, session));
    },
    onData(stream, _session, done) {
      stream.on('end', () => done());
      stream.resume();
    },
  };
}

class FixtureServer extends SMTPServer {
  readonly sockets = new Set<net.Socket>();

  constructor(private readonly state: FixtureState) {
    super(smtpServerOptions(state));
  }

  // Mirrors SMTPServer.connect, constructing our connection class instead of the stock one.
  override connect(socket: net.Socket): void {
    this.state.sessions++;
    this.state.clients.push(socket.remoteAddress ?? '');
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    if (this.state.options.closeOnConnect) {
      socket.destroy();
      return;
    }
    const connection = new FixtureConnection(this, socket, this.state);
    this.connections.add(connection);
    connection.on('error', (err: Error) => this._onError(err));
    connection.on('connect', (data) => this._onClientConnect(data));
    connection.init();
  }
}

async function listen(server: net.Server | SMTPServer, port: number, host: string): Promise<number> {
  const target = server instanceof SMTPServer ? server.server : server;
  await new Promise<void>((resolve, reject) => {
    target.once('error', reject);
    target.listen(port, host, () => {
      target.off('error', reject);
      resolve();
    });
  });
  return (target.address() as net.AddressInfo).port;
}

async function portIsFree(port: number, host: string): Promise<boolean> {
  const probe = net.createServer();
  try {
    await listen(probe, port, host);
    return true;
  } catch {
    return false;
  } finally {
    if (probe.listening) await new Promise((resolve) => probe.close(resolve));
  }
}

/** A TCP port free on every given loopback host at once (for MX fixtures sharing the SMTP port). */
export async function freePort(hosts: string | string[] = '127.0.0.1'): Promise<number> {
  const [first = '127.0.0.1', ...rest] = Array.isArray(hosts) ? hosts : [hosts];
  for (let attempt = 0; attempt < 20; attempt++) {
    const probe = net.createServer();
    const port = await listen(probe, 0, first);
    await new Promise((resolve) => probe.close(resolve));
    const others = await Promise.all(rest.map((host) => portIsFree(port, host)));
    if (others.every(Boolean)) return port;
  }
  throw new Error(`no port free on all of ${[first, ...rest].join(', ')}`);
}

export async function startSmtpServer(options: SmtpFixtureOptions = {}): Promise<SmtpFixture> {
  const host = options.host ?? '127.0.0.1';
  const state = new FixtureState(options);
  const fixture = (port: number, close: () => Promise<void>): SmtpFixture => ({
    host,
    port,
    sessionCount: () => state.sessions,
    refusalsPerSession: () => [...state.refusalsPerSession],
    clientAddresses: () => [...state.clients],
    peakSessions: () => state.sessionCounter.peak,
    peakSessionsFrom: (clientAddress) => state.fromClient.get(clientAddress)?.peak ?? 0,
    rcptCount: (address) => (address === undefined ? [...state.rcpts.values()].reduce((sum, n) => sum + n, 0) : (state.rcpts.get(foldCase(address)) ?? 0)),
    commands: state.commands,
    reset: () => state.reset(),
    close,
  });

  if (options.refuse) {
    return fixture(options.port ?? (await freePort(host)), async () => undefined);
  }
  const server = new FixtureServer(state);
  // A client killed mid-transaction (a SIGKILLed service) resets its sockets; smtp-server reports
  // that as a server 'error', which without a listener would crash the test process.
  server.on('error', () => undefined);
  const port = await listen(server, options.port ?? 0, host);
  return fixture(port, async () => {
    for (const socket of server.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
}
