import type { Dialer } from '../net/egress.js';
import { SmtpConnection } from './connection.js';
import { SmtpError } from './errors.js';
import { peerAddressIn } from './peer-address.js';
import type { SmtpReply } from './reply.js';
import type { Transcript } from '../core/transcript.js';

export interface SessionOptions {
  port: number;
  heloName: string;
  mailFrom: string;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  /** Whether to use STARTTLS when the server offers it. */
  startTls: boolean;
  /** How connections go out: directly or through the proxy, from the source address, watched for a blocked port. */
  dial: Dialer;
  /** The egress `dial` goes out through, as its key (net/egress-key.ts): its host slots and benches. */
  egress?: string;
  /**
   * The egress as its configured label (net/egress-pool.ts): what `--explain` names, never a proxy's
   * host or address, which an explanation read through the service would give away.
   */
  egressLabel?: string;
  /** Where the session's lines and connection attempts are written, when someone asked (`--explain`). */
  transcript?: Transcript;
}

/** Where to connect: an address, and the host name it belongs to (for TLS SNI and messages). */
export interface SessionTarget {
  address: string;
  hostname: string;
}

function isPositive(reply: SmtpReply): boolean {
  return reply.code >= 200 && reply.code < 300;
}

function refused(step: string, reply: SmtpReply): SmtpError {
  return new SmtpError('refused', `${step} refused: ${reply.line}`, reply);
}

/** EHLO keywords (upper case), from the lines after the first. */
function extensionsOf(reply: SmtpReply): Set<string> {
  return new Set(reply.lines.slice(1).map((line) => line.split(' ')[0]!.toUpperCase()));
}

/** What the server said to our EHLO (HELO): its extensions, and the address it says we come from, if it says one. */
interface Hello {
  extensions: Set<string>;
  seenAs: string | null;
}

/**
 * An SMTP session up to an open mail transaction: greeting, EHLO (HELO when EHLO is refused),
 * STARTTLS when offered, MAIL FROM. Then any number of RCPT TO, new transactions, and QUIT.
 */
export class SmtpSession {
  private constructor(
    private readonly connection: SmtpConnection,
    private readonly options: SessionOptions,
    private readonly extensions: Set<string>,
    /** The address the server said we come from (peer-address.ts), null when it said none. */
    readonly seenAs: string | null,
  ) {}

  /**
   * Greeting and EHLO, then QUIT: no transaction. Says what address the host sees us come from,
   * for the egress's standing (standing.ts); throws an SmtpError as `open` does.
   */
  static async introduce(target: SessionTarget, options: SessionOptions): Promise<{ seenAs: string | null }> {
    const { connection, hello } = await SmtpSession.greet(target, options);
    void connection.quit();
    return { seenAs: hello.seenAs };
  }

  /** Opens a session; when the TLS handshake fails, once more in plain text (we probe, we do not deliver). */
  static async open(target: SessionTarget, options: SessionOptions): Promise<SmtpSession> {
    try {
      return await SmtpSession.openOnce(target, options);
    } catch (error) {
      if (!(error instanceof SmtpError && error.kind === 'tls')) throw error;
      return SmtpSession.openOnce(target, { ...options, startTls: false });
    }
  }

  /** Connected, greeted and introduced (EHLO); the connection closed if any of it fails. */
  private static async greet(target: SessionTarget, options: SessionOptions): Promise<{ connection: SmtpConnection; hello: Hello }> {
    const connection = await SmtpSession.connect(target, options);
    try {
      const greeting = await connection.readReply(options.commandTimeoutMs);
      if (greeting.code !== 220) throw refused('greeting', greeting);
      return { connection, hello: await SmtpSession.hello(connection, target, options) };
    } catch (error) {
      connection.close();
      throw error;
    }
  }

  private static async openOnce(target: SessionTarget, options: SessionOptions): Promise<SmtpSession> {
    const greeted = await SmtpSession.greet(target, options);
    const { connection } = greeted;
    let { hello } = greeted;
    try {
      if (options.startTls && hello.extensions.has('STARTTLS')) {
        const reply = await connection.command('STARTTLS', options.commandTimeoutMs);
        if (reply.code === 220) {
          await connection.upgradeToTls(target.hostname, options.commandTimeoutMs);
          hello = await SmtpSession.hello(connection, target, options);
        }
      }
      const session = new SmtpSession(connection, options, hello.extensions, hello.seenAs);
      await session.mailFrom();
      return session;
    } catch (error) {
      connection.close();
      throw error;
    }
  }

  /** The connection, its attempt written to the transcript (if any) whichever way it ends. */
  private static async connect(target: SessionTarget, options: SessionOptions): Promise<SmtpConnection> {
    const { transcript } = options;
    const egress = options.egressLabel ?? 'default';
    const attempt = { host: target.hostname, address: target.address, egress };
    try {
      const connection = await SmtpConnection.connect(target.address, options.port, options.connectTimeoutMs, options.dial, transcript);
      transcript?.connection({ ...attempt, outcome: 'connected' });
      return connection;
    } catch (error) {
      // A proxy's failure names the proxy: the explanation names the egress by its label instead.
      transcript?.connection({ ...attempt, outcome: (error as Error).message.replace(/^SOCKS5 proxy \S+ /, `${egress} `) });
      throw error;
    }
  }

  private static async hello(connection: SmtpConnection, target: SessionTarget, options: SessionOptions): Promise<Hello> {
    const ehlo = await connection.command(`EHLO ${options.heloName}`, options.commandTimeoutMs);
    if (isPositive(ehlo)) return { extensions: extensionsOf(ehlo), seenAs: peerAddressIn(ehlo, target.address) };
    const helo = await connection.command(`HELO ${options.heloName}`, options.commandTimeoutMs);
    if (!isPositive(helo)) throw refused('HELO', helo);
    return { extensions: new Set(), seenAs: peerAddressIn(helo, target.address) };
  }

  /** Whether the server takes internationalised (UTF-8) addresses (RFC 6531). */
  get smtpUtf8(): boolean {
    return this.extensions.has('SMTPUTF8');
  }

  rcpt(address: string): Promise<SmtpReply> {
    return this.connection.command(`RCPT TO:<${address}>`, this.options.commandTimeoutMs);
  }

  /** RSET and a new MAIL FROM: a fresh transaction, for servers that cap recipients per transaction. */
  async newTransaction(): Promise<void> {
    const reply = await this.connection.command('RSET', this.options.commandTimeoutMs);
    if (!isPositive(reply)) throw refused('RSET', reply);
    await this.mailFrom();
  }

  quit(): Promise<void> {
    return this.connection.quit();
  }

  /** Drops the connection without a word (after a timeout or a protocol error). */
  abort(): void {
    this.connection.close();
  }

  private async mailFrom(): Promise<void> {
    const parameters = this.smtpUtf8 ? ' SMTPUTF8' : '';
    const reply = await this.connection.command(`MAIL FROM:<${this.options.mailFrom}>${parameters}`, this.options.commandTimeoutMs);
    if (!isPositive(reply)) throw refused('MAIL FROM', reply);
  }
}
