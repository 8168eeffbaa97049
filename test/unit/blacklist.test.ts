import { describe, expect, it } from 'vitest';
import { isListingAnswer, reversedName } from '../../src/engine/checks/blacklist.js';

describe('isListingAnswer', () => {
  it.each([
    ['127.0.0.2', 'the classic listing code (SBL)'],
    ['127.0.0.4', 'XBL'],
    ['127.0.0.11', 'PBL'],
    ['127.0.1.2', 'DBL spam domain'],
    ['127.0.1.254', 'just below the DBL error code'],
    ['127.255.254.1', 'just below the Spamhaus error range'],
  ])('%s is a listing (%s)', (answer) => {
    expect(isListingAnswer(answer)).toBe(true);
  });

  it.each([
    ['127.255.255.254', 'Spamhaus: query via a public resolver'],
    ['127.255.255.255', 'Spamhaus: over the query limit'],
    ['127.255.255.252', 'Spamhaus: typing error in the zone name'],
    ['127.255.255.0', 'the bottom of the error range'],
    ['127.0.0.1', '"query refused"'],
    ['127.0.1.255', 'Spamhaus DBL: IP queries prohibited'],
    ['192.0.2.1', 'outside 127/8: a resolver that rewrites NXDOMAIN to an ad server'],
  ])('%s is not a listing (%s)', (answer) => {
    expect(isListingAnswer(answer)).toBe(false);
  });
});

describe('reversedName', () => {
  it.each([
    ['192.0.2.99', '99.2.0.192'],
    ['2001:db8::1', '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2'],
    ['2001:DB8:1:2:3:4:5:6', '6.0.0.0.5.0.0.0.4.0.0.0.3.0.0.0.2.0.0.0.1.0.0.0.8.b.d.0.1.0.0.2'],
    ['::1', '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0'],
  ])('%s → %s', (ip, name) => {
    expect(reversedName(ip)).toBe(name);
  });

  it('has no name for what is not an address', () => {
    expect(reversedName('mx.example.com')).toBeNull();
  });
});
