import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../src/engine/net/private-address.js';

/** [address, why it must not be contacted] */
const PRIVATE: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.0.0.53', 'loopback, the whole /8'],
  ['::1', 'IPv6 loopback'],
  ['::', 'unspecified'],
  ['0.0.0.0', '"this host"'],
  ['0.1.2.3', '"this network"'],
  ['10.0.0.1', 'RFC 1918 10/8'],
  ['172.16.0.1', 'RFC 1918 172.16/12, low end'],
  ['172.31.255.254', 'RFC 1918 172.16/12, high end'],
  ['192.168.1.1', 'RFC 1918 192.168/16'],
  ['169.254.169.254', 'cloud metadata service (AWS, GCP, Azure)'],
  ['169.254.0.1', 'link-local'],
  ['100.64.0.1', 'CGNAT, low end'],
  ['100.127.255.254', 'CGNAT, high end'],
  ['100.100.100.200', 'Alibaba Cloud metadata'],
  ['192.0.0.192', 'Oracle Cloud metadata'],
  ['192.0.2.10', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast (SSDP)'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['fe80::1', 'IPv6 link-local'],
  ['fe80::1%eth0', 'IPv6 link-local with a zone id'],
  ['febf:ffff::1', 'IPv6 link-local, high end of fe80::/10'],
  ['fc00::1', 'unique local fc00::/7, low half'],
  ['fd12:3456::1', 'unique local fc00::/7, high half'],
  ['fd00:ec2::254', 'AWS metadata over IPv6'],
  ['ff02::1', 'IPv6 multicast'],
  ['2001:db8::25', 'IPv6 documentation'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex form'],
  ['::ffff:10.1.2.3', 'IPv4-mapped RFC 1918'],
  ['::ffff:169.254.169.254', 'IPv4-mapped metadata service'],
  ['::127.0.0.1', 'deprecated IPv4-compatible loopback'],
  ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 of 169.254.169.254'],
  ['64:ff9b::', 'NAT64 of 0.0.0.0'],
  ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
  ['[::1]', 'bracketed IPv6 loopback'],
  ['FE80::1', 'upper-case IPv6'],
  ['localhost', 'a name, not an address: never contacted unclassified'],
  ['', 'empty'],
  ['999.1.1.1', 'not an address'],
];

const PUBLIC: [string, string][] = [
  ['8.8.8.8', 'public DNS'],
  ['142.250.102.27', 'a Google MX'],
  ['1.1.1.1', 'public'],
  ['172.15.255.255', 'just below 172.16/12'],
  ['172.32.0.1', 'just above 172.16/12'],
  ['100.63.255.255', 'just below CGNAT'],
  ['100.128.0.1', 'just above CGNAT'],
  ['169.253.255.255', 'just below link-local'],
  ['192.169.0.1', 'just above 192.168/16'],
  ['11.0.0.1', 'just above 10/8'],
  ['223.255.255.255', 'just below multicast'],
  ['2a00:1450:4001:82b::1b', 'a Google MX over IPv6'],
  ['2606:4700:4700::1111', 'public IPv6'],
  ['::ffff:8.8.8.8', 'IPv4-mapped public address'],
  ['64:ff9b::808:808', 'NAT64 of 8.8.8.8'],
];

describe('isPrivateAddress', () => {
  it.each(PRIVATE)('%j is private (%s)', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(PUBLIC)('%j is public (%s)', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});
