/**
 * The lists the multi-process tests verify: numbered addresses whose number says the verdict
 * (even: a mailbox the fixture has, odd: none), so a result is checked against its address alone.
 */

/** `${prefix}0@domain` … `${prefix}${count - 1}@domain`. */
export const numberedAddresses = (prefix: string, count: number, domain: string): string[] =>
  Array.from({ length: count }, (_, index) => `${prefix}${index}@${domain}`);

/** Even-numbered addresses have a mailbox, odd ones do not. */
export const expectedVerdict = (email: string): 'valid' | 'invalid' => (/[02468]@/.test(email) ? 'valid' : 'invalid');
