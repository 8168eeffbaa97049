import { UNDECIDED, type CatchAllFinding } from '../checks/catch-all.js';
import { settledOutcome, unknownOutcome, type SmtpOutcome } from '../smtp/outcome.js';
import type { Priority } from '../core/semaphore.js';
import type { Transcript } from '../core/transcript.js';
import type { VerificationResult, VerifyManyOptions } from '../core/types.js';
import type { VerifierContext } from './context.js';
import type { DomainFacts } from './domain-facts.js';
import { DomainProbe } from './domain-probe.js';
import { addressResult, type AddressEntry } from './results.js';

/**
 * Verifies every address at one domain: the domain's facts once, the SMTP answers over shared
 * sessions where there is a host to ask, and each address's results emitted as soon as its
 * answer is in.
 */
export class DomainRun {
  constructor(
    private readonly context: VerifierContext,
    private readonly asciiDomain: string,
    /** Entries by RCPT address; duplicates of one address share its answer. */
    private readonly entries: ReadonlyMap<string, readonly AddressEntry[]>,
    private readonly emit: (result: VerificationResult) => void,
    private readonly priority: Priority,
    private readonly options: VerifyManyOptions,
    private readonly transcript?: Transcript,
  ) {}

  async run(): Promise<void> {
    const facts = await this.context.domainFacts(this.asciiDomain);
    if (facts.status.kind !== 'routable' || facts.mail.targets.length === 0) {
      const outcome = Promise.resolve(unknownOutcome(facts.mail.problem, 'mail_host_unusable'));
      const addresses = [...this.entries.keys()];
      await Promise.all(addresses.map((address) => this.finish(facts, address, outcome, Promise.resolve(UNDECIDED))));
      return;
    }
    const { signal, share } = this.options;
    const { transcript } = this;
    transcript?.mxHosts.push(...facts.mail.targets.map(({ hostname, address }) => ({ host: hostname, address })));
    const probe = new DomainProbe(this.context, this.asciiDomain, facts.mail.targets, this.entries.keys(), {
      priority: this.priority,
      share,
      signal,
      transcript,
    });
    await Promise.all([...probe.answers].map(([address, answer]) => this.finish(facts, address, answer, probe.catchAll)));
  }

  private async finish(facts: DomainFacts, address: string, answer: Promise<SmtpOutcome>, catchAll: Promise<CatchAllFinding>): Promise<void> {
    const smtp = await settledOutcome(await answer);
    const [listings, reachable, finding] = await Promise.all([facts.listings, facts.reachable, catchAll]);
    const foldsCase = this.foldsCase(facts);
    for (const entry of this.entries.get(address) ?? []) {
      this.emit(addressResult(entry, { facts, listings, reachable, catchAll: finding, foldsCase }, smtp));
    }
  }

  /**
   * Whether a verdict here may stand for the address in any case: only when every mail host's
   * provider rule says so (docs/providers.md), since any of them may be the one that answered.
   */
  private foldsCase(facts: DomainFacts): boolean {
    const { targets } = facts.mail;
    return targets.length > 0 && targets.every((target) => this.context.rules.of(target.hostname)?.foldsCase === true);
  }
}
