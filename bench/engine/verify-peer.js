/**
 * Child process: one npm peer verifies the world's addresses, `concurrency` at a time. Peers use
 * the process's resolver and port 25, so this process's resolver is pointed at the fixture's DNS
 * server: `dns.setServers` for their MX lookups, and `dns.lookup` (which `net.connect` uses to
 * find the MX host, and which would ask the system's resolver) answered from that server too.
 */
import dns from 'node:dns';
import net from 'node:net';
import { serveTask } from '../lib/child.js';
import { cpuMsSince } from '../lib/cpu-time.js';
import { mapPool } from '../lib/pool.js';
import { PEERS } from './peers.js';

function useFixtureDns(server) {
  dns.setServers([server]);
  dns.promises.setServers([server]);
  const resolver = new dns.Resolver();
  resolver.setServers([server]);
  dns.lookup = (hostname, options, callback) => {
    if (typeof options === 'function') [callback, options] = [options, {}];
    const all = typeof options === 'object' && options.all;
    const answer = (addresses) =>
      all
        ? callback(
            null,
            addresses.map((address) => ({ address, family: 4 })),
          )
        : callback(null, addresses[0], 4);
    if (net.isIPv4(hostname)) return process.nextTick(answer, [hostname]);
    resolver.resolve4(hostname, (error, addresses) => {
      if (error) callback(Object.assign(error, { code: 'ENOTFOUND' }));
      else answer(addresses);
    });
  };
}

serveTask(async ({ peer, dnsServer, addresses, concurrency }) => {
  useFixtureDns(dnsServer);
  const verify = await PEERS[peer]();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const verdicts = await mapPool(addresses, concurrency, (email) => verify(email).catch(() => 'unknown'));
  const elapsedMs = performance.now() - started;
  return { elapsedMs, cpuMs: cpuMsSince(cpuBefore), verdicts: Object.fromEntries(addresses.map((email, i) => [email, { result: verdicts[i], reason: '' }])) };
});
