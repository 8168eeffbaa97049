import net from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import tls from 'node:tls';
import { DialError, type Dialer } from '../net/egress.js';
import { SmtpError } from './errors.js';
import { parseReply, parseReplyLine, SmtpProtocolError, type SmtpReply } from './reply.js';
import type { Transcript } from '../core/transcript.js';

/** Hostile or broken servers must not make us buffer without end. */
const MAX_LINE_LENGTH = 8_192;
const MAX_REPLY_LINES = 200;
/** How long a server may take to hang up after our QUIT before we cut the connection. */
const QUIT_GRACE_MS = 5_000;

interface Waiter {
  resolve: (reply: SmtpReply) => void;
  reject: (error: SmtpError) => void;
}

/**
 * One TCP (then maybe TLS) connection to an SMTP server: sends command lines and reads whole
 * replies, each within a deadline. It knows the wire format only, not the conversation.
 */
export class SmtpConnection {
  private socket: net.Socket;
  private readonly decoder = new StringDecoder('utf8');
  private buffered = '';
  private lines: string[] = [];
  private readonly replies: SmtpReply[] = [];
  private waiter: Waiter | null = null;
  private failure: SmtpError | null = null;
  private readonly onData = (chunk: Buffer): void => this.receive(this.decoder.write(chunk));
  private readonly onClose = (): void => this.fail(new SmtpError('closed', 'the server closed the connection'));
  private readonly onError = (error: Error): void => this.fail(new SmtpError('closed', `connection error: ${error.message}`));

  private constructor(
    socket: net.Socket,
    /** Where every line sent and received is written, when someone asked (`--explain`). */
    private readonly transcript?: Transcript,
  ) {
    this.socket = socket;
    this.attach(socket);
  }

  /** Connects within `timeoutMs` the way `dial` goes out; the greeting is read with `readReply`. */
  static async connect(address: string, port: number, timeoutMs: number, dial: Dialer, transcript?: Transcript): Promise<SmtpConnection> {
    try {
      const socket = await dial(address, port, timeoutMs);
      socket.setNoDelay(true);
      return new SmtpConnection(socket, transcript);
    } catch (error) {
      if (error instanceof DialError) throw new SmtpError('connect', error.message, undefined, error);
      throw error;
    }
  }

  /** The next reply from the server (the greeting first), within `timeoutMs`. */
  readReply(timeoutMs: number): Promise<SmtpReply> {
    const ready = this.replies.shift();
    if (ready) return Promise.resolve(ready);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        const error = new SmtpError('timeout', `no reply within ${timeoutMs} ms`);
        this.fail(error);
        reject(error);
      }, timeoutMs);
      this.waiter = {
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
    });
  }

  /** Sends one command line and reads its reply. */
  command(line: string, timeoutMs: number): Promise<SmtpReply> {
    if (this.failure) return Promise.reject(this.failure);
    this.transcript?.sent(line);
    this.socket.write(`${line}\r\n`);
    return this.readReply(timeoutMs);
  }

  /**
   * Upgrades to TLS after a 220 to STARTTLS. Certificates are not checked: we probe, we do not
   * deliver, and many MX hosts present self-signed or mismatched certificates.
   */
  upgradeToTls(servername: string, timeoutMs: number): Promise<void> {
    const plain = this.socket;
    this.detach(plain);
    return new Promise((resolve, reject) => {
      const secure = tls.connect({ socket: plain, servername: net.isIP(servername) ? undefined : servername, rejectUnauthorized: false });
      const timer = setTimeout(() => fail(`no TLS handshake within ${timeoutMs} ms`), timeoutMs);
      const fail = (message: string): void => {
        clearTimeout(timer);
        plain.on('error', () => undefined);
        secure.destroy();
        const error = new SmtpError('tls', message);
        this.failure = error;
        reject(error);
      };
      secure.once('error', (error: Error) => fail(`TLS handshake failed: ${error.message}`));
      secure.once('secureConnect', () => {
        clearTimeout(timer);
        secure.removeAllListeners('error');
        this.socket = secure;
        this.attach(secure);
        resolve();
      });
    });
  }

  /**
   * Says goodbye and waits for the server to hang up (at most QUIT_GRACE_MS). Nothing in its
   * answer matters, but until it closes the server still counts the connection, so a caller that
   * limits connections per host frees its slot only after this resolves.
   */
  async quit(): Promise<void> {
    if (this.failure || !this.socket.writable) return this.close();
    const socket = this.socket;
    const hungUp = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    this.transcript?.sent('QUIT');
    socket.end('QUIT\r\n');
    this.close();
    // close() lets go of the socket (nothing waits for a hang-up it does not ask for), but this
    // caller does: were it the last thing alive, the process would end with the wait unsettled.
    socket.ref();
    await hungUp;
  }

  close(): void {
    this.fail(new SmtpError('closed', 'connection closed by us'));
  }

  private attach(socket: net.Socket): void {
    socket.on('data', this.onData);
    socket.on('close', this.onClose);
    socket.on('error', this.onError);
  }

  private detach(socket: net.Socket): void {
    socket.off('data', this.onData);
    socket.off('close', this.onClose);
    socket.off('error', this.onError);
  }

  private receive(text: string): void {
    this.buffered += text;
    let end: number;
    while ((end = this.buffered.indexOf('\n')) !== -1) {
      const line = this.buffered.slice(0, end).replace(/\r$/, '');
      this.buffered = this.buffered.slice(end + 1);
      this.receiveLine(line);
      if (this.failure) return;
    }
    if (this.buffered.length > MAX_LINE_LENGTH) this.fail(new SmtpError('protocol', 'reply line too long'));
  }

  private receiveLine(line: string): void {
    try {
      this.transcript?.received(line);
      this.lines.push(line);
      if (this.lines.length > MAX_REPLY_LINES) throw new SmtpProtocolError('reply has too many lines');
      if (parseReplyLine(line).more) return;
      const reply = parseReply(this.lines);
      this.lines = [];
      const waiter = this.waiter;
      this.waiter = null;
      if (waiter) waiter.resolve(reply);
      else this.replies.push(reply);
    } catch (error) {
      this.fail(new SmtpError('protocol', (error as Error).message));
    }
  }

  /** Ends the connection for good; a pending read gets `error`, later ones too. */
  private fail(error: SmtpError): void {
    if (this.failure) return;
    this.failure = error;
    this.detach(this.socket);
    // Late errors (a reset after our QUIT) must not become uncaught exceptions.
    this.socket.on('error', () => undefined);
    if (this.socket.writableEnded) {
      // After QUIT the server hangs up; nothing of ours waits for that, so neither does the process.
      this.socket.setTimeout(QUIT_GRACE_MS, () => this.socket.destroy());
      this.socket.unref();
    } else {
      this.socket.destroy();
    }
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.reject(error);
  }
}
