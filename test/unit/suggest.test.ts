import { describe, expect, it } from 'vitest';
import { editDistance, suggestDomain } from '../../src/engine/lists/suggest.js';

/** Misspellings seen in real sign-up forms, each with the provider domain it was meant to be. */
const MISSPELLINGS: [string, string][] = [
  ['gmial.com', 'gmail.com'],
  ['gmal.com', 'gmail.com'],
  ['gmaill.com', 'gmail.com'],
  ['gamil.com', 'gmail.com'],
  ['gnail.com', 'gmail.com'],
  ['gmai.com', 'gmail.com'],
  ['gmaul.com', 'gmail.com'],
  ['gmail.co', 'gmail.com'],
  ['gmail.cm', 'gmail.com'],
  ['gmail.om', 'gmail.com'],
  ['gmail.con', 'gmail.com'],
  ['gmail.cmo', 'gmail.com'],
  ['gmail.comm', 'gmail.com'],
  ['gmial.con', 'gmail.com'],
  ['googlemial.com', 'googlemail.com'],
  ['hotmial.com', 'hotmail.com'],
  ['hotmai.com', 'hotmail.com'],
  ['hotnail.com', 'hotmail.com'],
  ['homtail.com', 'hotmail.com'],
  ['hotmaill.com', 'hotmail.com'],
  ['hotmail.co', 'hotmail.com'],
  ['hotmal.co', 'hotmail.com'],
  ['hotmial.co.uk', 'hotmail.co.uk'],
  ['yaho.com', 'yahoo.com'],
  ['yahooo.com', 'yahoo.com'],
  ['yhaoo.com', 'yahoo.com'],
  ['yahoo.co', 'yahoo.com'],
  ['ymial.com', 'ymail.com'],
  ['outlok.com', 'outlook.com'],
  ['outllok.com', 'outlook.com'],
  ['outlock.com', 'outlook.com'],
  ['outlook.co', 'outlook.com'],
  ['iclod.com', 'icloud.com'],
  ['icoud.com', 'icloud.com'],
  ['icloud.co', 'icloud.com'],
  ['live.co', 'live.com'],
  ['aol.co', 'aol.com'],
  ['mail.co', 'mail.com'],
  ['protonmial.com', 'protonmail.com'],
  ['rocketmial.com', 'rocketmail.com'],
  ['fastmial.com', 'fastmail.com'],
  ['yandx.com', 'yandex.com'],
  ['comcats.net', 'comcast.net'],
  ['comcast.ne', 'comcast.net'],
  ['zohomial.com', 'zohomail.com'],
];

/**
 * Real domains that must never be "corrected": providers themselves (short ones one edit from a
 * bigger one among them), other countries' domains of the same providers, and real domains a
 * letter away from a provider.
 */
const REAL_DOMAINS = [
  'gmail.com',
  'gmx.com',
  'mail.com',
  'ymail.com',
  'live.com',
  'msn.com',
  'me.com',
  'mac.com',
  'aol.com',
  'gmx.net',
  'icloud.com',
  'yahoo.co.uk',
  'hotmail.co.uk',
  'web.de',
  'qq.com',
  '163.com',
  '126.com',
  'email.com',
  'cloud.com',
  'wahoo.com',
  'love.com',
  'aon.com',
  'mic.com',
  'web.com',
  'sky.com',
  'hotmail.es',
  'hotmail.be',
  'hotmail.nl',
  'yahoo.ca',
  'yahoo.in',
  'yahoo.co.jp',
  'yahoo.com.br',
  'live.nl',
  'live.be',
  'outlook.de',
  'outlook.fr',
  'gmx.us',
  'mail.de',
  'yandex.ua',
  'yandex.kz',
  'inbox.com',
  '163.net',
  'comcast.com',
  'orange.com',
  'aol.co.uk',
  'aol.de',
  'zoho.in',
  'zoho.eu',
  'att.net',
  'verizon.net',
  'btinternet.com',
  'example.org',
];

describe('typo suggestions', () => {
  it.each(MISSPELLINGS)('%s → %s', (typed, meant) => {
    expect(suggestDomain(typed)).toBe(meant);
  });

  it.each(REAL_DOMAINS)('%s gets no suggestion', (domain) => {
    expect(suggestDomain(domain)).toBeNull();
  });

  it('has at least 30 rows of each kind', () => {
    expect(MISSPELLINGS.length).toBeGreaterThanOrEqual(30);
    expect(REAL_DOMAINS.length).toBeGreaterThanOrEqual(30);
  });

  it('ignores case and a trailing dot', () => {
    expect(suggestDomain('GMIAL.com.')).toBe('gmail.com');
  });

  it('counts insertions, deletions, substitutions and swaps of neighbours as one edit each', () => {
    expect(editDistance('gmail', 'gmail')).toBe(0);
    expect(editDistance('gmail', 'gmial')).toBe(1);
    expect(editDistance('gmail', 'gmal')).toBe(1);
    expect(editDistance('gmail', 'gmaill')).toBe(1);
    expect(editDistance('gmail', 'gnail')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
});
