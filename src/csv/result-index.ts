import type { VerificationResult } from '../engine/core/types.js';
import { addressKey } from '../engine/checks/address-key.js';

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
