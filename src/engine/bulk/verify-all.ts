import { checkFormat } from '../checks/format.js';
import type { Priority } from '../core/semaphore.js';
import type { Transcript } from '../core/transcript.js';
import type { VerificationResult, VerifyManyOptions } from '../core/types.js';
import type { VerifierContext } from './context.js';
import { DomainRun } from './domain-run.js';
import { addressLiteralResult, malformedResult, type AddressEntry } from './results.js';

type OnResult = (result: VerificationResult) => void | Promise<void>;

/**
 * Hands results to `onResult` one at a time, in the order they complete, waiting for an async
 * `onResult` before the next; the first error it throws is rethrown once all work is done.
 */
class ResultStream {
  private chain: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | null = null;

  constructor(private readonly onResult: OnResult) {}

  readonly emit = (result: VerificationResult): void => {
    this.chain = this.chain.then(async () => {
      if (this.failure) return;
      try {
        await this.onResult(result);
      } catch (error) {
        this.failure = { error };
      }
    });
  };

  async end(): Promise<void> {
    await this.chain;
    if (this.failure) throw this.failure.error;
  }
}

/** Well-formed addresses by ASCII domain, then by RCPT address (duplicates share one entry list). */
function groupByDomain(emails: Iterable<string>, stream: ResultStream): Map<string, Map<string, AddressEntry[]>> {
  const domains = new Map<string, Map<string, AddressEntry[]>>();
  for (const given of emails) {
    const email = String(given).trim();
    const format = checkFormat(email);
    if (!format.ok) {
      stream.emit(malformedResult(email, format.reason));
      continue;
    }
    if (format.addressLiteral !== null) {
      stream.emit(addressLiteralResult(email));
      continue;
    }
    const { local, asciiDomain } = format;
    const address = `${local}@${asciiDomain}`;
    const byAddress = domains.get(asciiDomain) ?? new Map<string, AddressEntry[]>();
    domains.set(asciiDomain, byAddress);
    const entries = byAddress.get(address) ?? [];
    byAddress.set(address, entries);
    entries.push({ email, local });
  }
  return domains;
}

/** `verifyMany`: every address gets exactly one result, streamed as it completes. */
export async function verifyAll(
  context: VerifierContext,
  emails: Iterable<string>,
  onResult: OnResult,
  priority: Priority = 'bulk',
  options: VerifyManyOptions = {},
  /** Where a single explained verification is recorded (`verify` with `explain`). */
  transcript?: Transcript,
): Promise<void> {
  const stream = new ResultStream(onResult);
  const domains = groupByDomain(emails, stream);
  await Promise.all([...domains].map(([domain, entries]) => new DomainRun(context, domain, entries, stream.emit, priority, options, transcript).run()));
  await stream.end();
}
