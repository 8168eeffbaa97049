/**
 * A small SOCKS5 server (RFC 1928, with RFC 1929 username/password) on a loopback address, for
 * proving that SMTP connections go through a proxy: it counts the connections it relays and the
 * destinations asked for. Only CONNECT, as the engine needs; IPv4, IPv6 and name destinations.
 */
import net from 'node:net';

export interface SocksFixtureOptions {
  /** A 127.0.x.y address to listen on. */
  host: string;
  /** Demand these credentials (method 0x02); no authentication otherwise (method 0x00). */
  credentials?: { username: string; password: string };
}

export interface SocksFixture {
  host: string;
  port: number;
  /** `socks5://host:port`, with the fixture's credentials when it has some. */
  url: string;
  /** Destinations of the CONNECTs relayed, `address:port` each, in order. */
  relayed: string[];
  /** The client address of every connection to the proxy, in order. */
  clients: string[];
  /** Clients refused for wrong credentials. */
  refusedLogins(): number;
  close(): Promise<void>;
}

const VERSION = 0x05;
const NO_AUTH = 0x00;
const USER_PASS = 0x02;
const NO_ACCEPTABLE = 0xff;
const CONNECT = 0x01;
const SUCCEEDED = 0x00;
const HOST_UNREACHABLE = 0x04;

/** Reads exactly `length` bytes from a paused socket, whatever the chunks. */
function reader(socket: net.Socket) {
  let buffered = Buffer.alloc(0);
  let wanted: { length: number; resolve: (bytes: Buffer) => void } | null = null;
  const serve = () => {
    if (wanted && buffered.length >= wanted.length) {
      const { length, resolve } = wanted;
      wanted = null;
      const bytes = buffered.subarray(0, length);
      buffered = buffered.subarray(length);
      resolve(bytes);
    }
  };
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    serve();
  };
  socket.on('data', onData);
  return {
    read: (length: number) =>
      new Promise<Buffer>((resolve) => {
        wanted = { length, resolve };
        serve();
      }),
    /** Stops reading; returns what came after the handshake, to be relayed. */
    detach: () => {
      socket.off('data', onData);
      return buffered;
    },
  };
}

async function destination(read: (length: number) => Promise<Buffer>): Promise<{ host: string; port: number }> {
  const [, command, , type] = await read(4);
  if (command !== CONNECT) throw new Error(`unsupported SOCKS command ${command}`);
  let host: string;
  if (type === 0x01) host = [...(await read(4))].join('.');
  else if (type === 0x04) host = (await read(16)).toString('hex').replace(/(.{4})(?!$)/g, '$1:');
  else host = (await read((await read(1))[0]!)).toString('utf8');
  return { host, port: (await read(2)).readUInt16BE(0) };
}

export async function startSocksServer(options: SocksFixtureOptions): Promise<SocksFixture> {
  const relayed: string[] = [];
  const clients: string[] = [];
  const sockets = new Set<net.Socket>();
  let refused = 0;

  async function handshake(client: net.Socket): Promise<void> {
    const { read, detach } = reader(client);
    const [, methodCount] = await read(2);
    const methods = [...(await read(methodCount!))];
    const method = options.credentials ? USER_PASS : NO_AUTH;
    if (!methods.includes(method)) {
      client.end(Buffer.from([VERSION, NO_ACCEPTABLE]));
      return;
    }
    client.write(Buffer.from([VERSION, method]));
    if (options.credentials) {
      const [, userLength] = await read(2);
      const username = (await read(userLength!)).toString('utf8');
      const password = (await read((await read(1))[0]!)).toString('utf8');
      const ok = username === options.credentials.username && password === options.credentials.password;
      client.write(Buffer.from([0x01, ok ? 0x00 : 0x01]));
      if (!ok) {
        refused += 1;
        client.end();
        return;
      }
    }
    const { host, port } = await destination(read);
    const upstream = net.connect({ host, port });
    sockets.add(upstream);
    upstream.once('close', () => sockets.delete(upstream));
    upstream.once('error', () => {
      client.end(Buffer.from([VERSION, HOST_UNREACHABLE, 0, 1, 0, 0, 0, 0, 0, 0]));
    });
    upstream.once('connect', () => {
      relayed.push(`${host}:${port}`);
      client.write(Buffer.from([VERSION, SUCCEEDED, 0, 1, 127, 0, 0, 1, 0, 0]));
      const early = detach();
      if (early.length > 0) upstream.write(early);
      client.pipe(upstream).pipe(client);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
  }

  const server = net.createServer((client) => {
    sockets.add(client);
    clients.push(client.remoteAddress ?? '');
    client.once('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    handshake(client).catch(() => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.host, () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  const auth = options.credentials ? `${encodeURIComponent(options.credentials.username)}:${encodeURIComponent(options.credentials.password)}@` : '';
  return {
    host: options.host,
    port,
    url: `socks5://${auth}${options.host}:${port}`,
    relayed,
    clients,
    refusedLogins: () => refused,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
