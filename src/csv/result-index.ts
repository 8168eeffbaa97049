import type { VerificationResult } from '../engine/types.js';

/** Addresses are the same when equal trimmed and ignoring case: the service de-duplicates so too. */
export function addressKey(address: string): string {
  return address.trim().toLowerCase();
}

/** The results of one or more jobs, found by address. */
export class ResultIndex {
  private readonly byKey = new Map<string, VerificationResult>();

  add(results: Iterable<VerificationResult>): this {
    for (const result of results) this.byKey.set(addressKey(result.email), result);
    return this;
  }

  get(address: string): VerificationResult | undefined {
    return this.byKey.get(addressKey(address));
  }

  values(): IterableIterator<VerificationResult> {
    return this.byKey.values();
  }
}
