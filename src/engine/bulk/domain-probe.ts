import { catchAllProbeAddress, type CatchAllFinding } from '../checks/catch-all.js';
import type { SmtpOutcome } from '../smtp/outcome.js';
import type { ProbeAnswer, ProbeRequest, SessionSlot } from '../smtp/probe-contract.js';
import { SmtpProber } from '../smtp/prober.js';
import { SessionSharing } from '../smtp/session-sharing.js';
import type { Transcript } from '../core/transcript.js';
import type { SessionTarget } from '../smtp/session.js';
import type { MatchedRule } from '../rules/provider-rules.js';
import type { Priority } from '../core/semaphore.js';
import type { Counts } from '../core/counts.js';
import type { VerifierContext } from './context.js';

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
 * address until its answer settles. The count is what ranks hosts for the global slots.
 */
class OwedRcpts {
  constructor(
    private readonly backlog: Counts,
    private readonly host: string | undefined,
  ) {}

  /** `settle`, counting the address owed until it is first called. */
  until(settle: (outcome: SmtpOutcome) => void): (outcome: SmtpOutcome) => void {
    const { host, backlog } = this;
    if (host === undefined) return settle;
    backlog.add(host, 1);
    let settled = false;
    return (outcome) => {
      if (!settled) backlog.add(host, -1);
      settled = true;
      settle(outcome);
    };
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
  /** Where an explained verification is recorded: its sessions are then its own (see VerifyOptions.explain). */
  transcript?: Transcript;
}

/**
 * The SMTP side of one domain's run: the catch-all probe (once per domain and verifier) first,
 * then every address over shared sessions, each asked once: a temporary answer is the caller's to
 * ask again later (docs/architecture.md "Settling later").
 */
export class DomainProbe {
  /** The SMTP answer of each RCPT address, settled as it comes in. */
  readonly answers = new Map<string, Promise<SmtpOutcome>>();
  readonly catchAll: Promise<CatchAllFinding>;
  private readonly settlers = new Map<string, (outcome: SmtpOutcome) => void>();
  private readonly prober: SmtpProber;
  private readonly signal?: AbortSignal;
  private readonly transcript?: Transcript;

  constructor(
    private readonly context: VerifierContext,
    private readonly asciiDomain: string,
    targets: readonly SessionTarget[],
    addresses: Iterable<string>,
    { priority, share, signal, transcript }: ProbeOptions,
  ) {
    const { options } = context;
    this.signal = signal;
    const owed = new OwedRcpts(context.backlog, targets[0]?.address);
    const takeSlot = (target: SessionTarget, pending: number) => context.takeSlot(target, { priority, share, pending, domain: asciiDomain });
    this.transcript = transcript;
    for (const address of addresses) {
      this.answers.set(address, new Promise((resolve) => this.settlers.set(address, owed.until(resolve))));
    }
    this.prober = new SmtpProber(targets, {
      domain: asciiDomain,
      perHostConcurrency: options.perHostConcurrency,
      takeSlot: transcript ? recording(transcript, takeSlot) : takeSlot,
      ruleOf: (hostname) => context.rules.of(hostname),
      habits: context.habits,
      // An explained verification neither lends its sessions to other domains nor borrows theirs.
      sharing: transcript ? new SessionSharing() : context.sharing,
      sharingKey: `${priority} ${share ?? ''}`,
      observer: context.observer,
    });
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
    // An explained verification probes for itself: a finding reused from another run would tell its
    // reader that someone, maybe another account, asked about the domain lately (docs/architecture.md "Explain").
    if (this.transcript) return new Promise((settle) => this.probeCatchAllFirst(settle));
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
    const probe: ProbeRequest = {
      address: probeAddress,
      answer: (answer) => {
        settle(catchAllFinding(answer, probeAddress));
        afterFirstAnswer(answer);
      },
    };
    this.prober.ask([this.unlessCancelled(probe)]);
    this.prober.expect(this.settlers.size, new Promise((resolve) => (askedAll = resolve)));
  }

  private askAll(): void {
    this.prober.ask([...this.settlers].map(([address, settle]) => this.unlessCancelled({ address, answer: (answer) => settle(answer.outcome) })));
  }

  /** A request the prober drops unasked once the caller's signal is aborted. */
  private readonly unlessCancelled = (request: ProbeRequest): ProbeRequest => (this.signal ? { ...request, cancelled: () => this.signal!.aborted } : request);

  private settleAll(outcome: SmtpOutcome): void {
    for (const settle of this.settlers.values()) settle(outcome);
  }
}
