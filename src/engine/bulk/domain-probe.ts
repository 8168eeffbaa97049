import { catchAllProbeAddress, type CatchAllFinding } from '../checks/catch-all.js';
import type { SmtpOutcome } from '../smtp/outcome.js';
import { SmtpProber, type ProbeAnswer, type ProbeRequest, type SessionSlot } from '../smtp/prober.js';
import { SessionSharing } from '../smtp/session-sharing.js';
import type { Transcript } from '../core/transcript.js';
import type { SessionTarget } from '../smtp/session.js';
import type { MatchedRule } from '../rules/provider-rules.js';
import type { Priority } from '../core/semaphore.js';
import type { Counts } from '../core/counts.js';
import type { VerifierContext } from './context.js';
import { GreylistRetries } from './greylist-retries.js';

function catchAllFinding(answer: ProbeAnswer, probeAddress: string): CatchAllFinding {
  const reason = `${probeAddress} got ${answer.outcome.reason}`;
  if (answer.kind === 'accepted') return { isCatchAll: true, decided: true, reason };
  return { isCatchAll: false, decided: answer.outcome.status === 'invalid', reason };
}

/**
 * Where the server accepts any address, its "yes" to a real one says nothing more: like Reacher,
 * we do not ask, and report what it would answer (the verdict is `catch_all` either way).
 */
function acceptedByCatchAll(finding: CatchAllFinding): SmtpOutcome {
  return { status: 'valid', reason: `not asked: the server accepts any address (${finding.reason})`, code: 'accepted' };
}

/**
 * The work the primary MX host still owes this run (VerifierContext.backlog), in RCPTs: one per
 * address until its answer settles, and one more from its first greylisted answer on. That second
 * one is not strictly owed (one RCPT is done), but a greylisting host's addresses cost two RCPTs
 * each and a delay, and the count is what ranks hosts for the global slots.
 */
class OwedRcpts {
  private readonly askedAgain = new Set<string>();

  constructor(
    private readonly backlog: Counts,
    private readonly host: string | undefined,
  ) {}

  /** `settle`, counting the address owed until it is first called. */
  until(address: string, settle: (outcome: SmtpOutcome) => void): (outcome: SmtpOutcome) => void {
    const { host, backlog } = this;
    if (host === undefined) return settle;
    backlog.add(host, 1);
    let settled = false;
    return (outcome) => {
      if (!settled) backlog.add(host, this.askedAgain.delete(address) ? -2 : -1);
      settled = true;
      settle(outcome);
    };
  }

  again(address: string): void {
    if (this.host === undefined || this.askedAgain.has(address)) return;
    this.askedAgain.add(address);
    this.backlog.add(this.host, 1);
  }
}

/** An explained verification's slots: their sessions write to its transcript. */
function recording(transcript: Transcript, takeSlot: (target: SessionTarget, pending: number) => Promise<SessionSlot>) {
  return async (target: SessionTarget, pending: number): Promise<SessionSlot> => {
    const slot = await takeSlot(target, pending);
    return { ...slot, session: { ...slot.session, transcript } };
  };
}

/** How one domain's addresses are asked (see VerifyManyOptions). */
export interface ProbeOptions {
  priority: Priority;
  share?: string;
  signal?: AbortSignal;
  /** Told of each RCPT address put aside for its greylist retry, once. */
  retryLater?: (address: string) => void;
  /** Where an explained verification is recorded: its sessions are then its own (see VerifyOptions.explain). */
  transcript?: Transcript;
}

/**
 * The SMTP side of one domain's run: the catch-all probe (once per domain and verifier) first,
 * then every address over shared sessions, greylisted ones again after the retry delay.
 */
export class DomainProbe {
  /** The SMTP answer of each RCPT address, settled as it comes in. */
  readonly answers = new Map<string, Promise<SmtpOutcome>>();
  readonly catchAll: Promise<CatchAllFinding>;
  private readonly settlers = new Map<string, (outcome: SmtpOutcome) => void>();
  private readonly prober: SmtpProber;
  private readonly greylist: GreylistRetries;
  private readonly signal?: AbortSignal;
  private readonly transcript?: Transcript;

  constructor(
    private readonly context: VerifierContext,
    private readonly asciiDomain: string,
    targets: readonly SessionTarget[],
    addresses: Iterable<string>,
    { priority, share, signal, retryLater, transcript }: ProbeOptions,
  ) {
    const { options } = context;
    this.signal = signal;
    const owed = new OwedRcpts(context.backlog, targets[0]?.address);
    const takeSlot = (target: SessionTarget, pending: number) => context.takeSlot(target, { priority, share, pending });
    this.transcript = transcript;
    for (const address of addresses) {
      this.answers.set(address, new Promise((resolve) => this.settlers.set(address, owed.until(address, resolve))));
    }
    this.prober = new SmtpProber(targets, {
      perHostConcurrency: options.perHostConcurrency,
      takeSlot: transcript ? recording(transcript, takeSlot) : takeSlot,
      ruleOf: (hostname) => context.rules.of(hostname),
      habits: context.habits,
      // An explained verification neither lends its sessions to other domains nor borrows theirs.
      sharing: transcript ? new SessionSharing() : context.sharing,
      sharingKey: `${priority} ${share ?? ''}`,
      observer: context.observer,
    });
    this.greylist = new GreylistRetries(
      { retryMs: options.greylistRetryMs, budgetMs: options.greylistBudgetMs },
      (requests) => this.prober.ask(requests.map(this.unlessCancelled)),
      (address) => {
        owed.again(address);
        retryLater?.(address);
      },
    );
    // Cancelled: what waits for its retry is dropped now, not a greylist delay later (a Ctrl-C stops at once).
    signal?.addEventListener('abort', () => this.greylist.flushNow(), { once: true });
    const primary = targets[0] && context.rules.of(targets[0].hostname);
    this.catchAll = primary?.skipCatchAllProbe ? this.skipCatchAllProbe(primary) : this.start();
  }

  /** The primary MX's provider rule says a random address's answer proves nothing there: ask only the real ones. */
  private skipCatchAllProbe(rule: MatchedRule): Promise<CatchAllFinding> {
    this.transcript?.note(`catch-all: not probed (provider rule ${rule.suffix})`);
    this.askAll();
    return Promise.resolve({ isCatchAll: false, decided: false, reason: `not probed (provider rule ${rule.suffix})` });
  }

  private start(): Promise<CatchAllFinding> {
    let ours = false;
    let settle: (finding: CatchAllFinding) => void = () => undefined;
    const catchAll = this.context.catchAll.get(this.asciiDomain, () => {
      ours = true;
      return new Promise<CatchAllFinding>((resolve) => (settle = resolve));
    });
    if (ours) {
      this.probeCatchAllFirst(settle);
    } else {
      // Another run has the probe: use its finding if it is in, else ask and read it at the end.
      const known = this.context.catchAll.peek(this.asciiDomain);
      this.transcript?.note(`catch-all: the finding of an earlier probe of ${this.asciiDomain} is reused (its random address not asked again)`);
      if (known?.isCatchAll) this.settleAll(acceptedByCatchAll(known));
      else this.askAll();
    }
    return catchAll;
  }

  /**
   * The real addresses are asked from inside the probe's first answer, so the probe's session
   * goes on with them, and the sessions opened meanwhile start on them at once.
   */
  private probeCatchAllFirst(settle: (finding: CatchAllFinding) => void): void {
    const probeAddress = catchAllProbeAddress(this.asciiDomain);
    let askedAll: () => void = () => undefined;
    const afterFirstAnswer = (answer: ProbeAnswer): void => {
      if (answer.kind === 'accepted') this.settleAll(acceptedByCatchAll(catchAllFinding(answer, probeAddress)));
      else this.askAll();
      askedAll();
    };
    this.prober.ask([this.unlessCancelled(this.greylist.request(probeAddress, (answer) => settle(catchAllFinding(answer, probeAddress)), afterFirstAnswer))]);
    this.prober.expect(this.settlers.size, new Promise((resolve) => (askedAll = resolve)));
  }

  private askAll(): void {
    this.prober.ask([...this.settlers].map(([address, settle]) => this.unlessCancelled(this.greylist.request(address, (answer) => settle(answer.outcome)))));
  }

  /** A request the prober drops unasked once the caller's signal is aborted. */
  private readonly unlessCancelled = (request: ProbeRequest): ProbeRequest => (this.signal ? { ...request, cancelled: () => this.signal!.aborted } : request);

  private settleAll(outcome: SmtpOutcome): void {
    for (const settle of this.settlers.values()) settle(outcome);
  }
}
