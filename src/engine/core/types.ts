import type { ReasonCode } from './reason-codes.js';
import type { Explanation } from './transcript.js';

/** The verdicts of the service interface (docs/api.md "Resources"). */
export const VERDICTS = ['valid', 'invalid', 'risky', 'catch_all', 'unknown'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Outcome of the SMTP RCPT TO probe (docs/api.md "Resources", `smtpStatus`). */
export type SmtpStatus = 'valid' | 'invalid' | 'unknown';

/** The interface's `checks` object (docs/api.md "Resources"), field for field. */
export interface Checks {
  format: boolean;
  domainExists: boolean;
  hasMx: boolean;
  domainReachable: boolean;
  smtpStatus: SmtpStatus;
  isDisposable: boolean;
  isRole: boolean;
  isBlacklisted: boolean;
  isKnownProvider: boolean;
  isCatchAll: boolean;
}

/**
 * The checks of an address nothing could be learnt about (malformed, or never verified): every
 * check false and the probe `unknown`. Frozen because results everywhere share it; spread it to
 * set a field (`{ ...NOTHING_CHECKED, format: true }`).
 */
export const NOTHING_CHECKED: Readonly<Checks> = Object.freeze({
  format: false,
  domainExists: false,
  hasMx: false,
  domainReachable: false,
  smtpStatus: 'unknown',
  isDisposable: false,
  isRole: false,
  isBlacklisted: false,
  isKnownProvider: false,
  isCatchAll: false,
});

/** The checks that are yes/no: the ones that can be left unestablished (`smtpStatus` says `unknown` itself). */
export type BooleanCheck = Exclude<keyof Checks, 'smtpStatus'>;

/** Every check beyond the syntax: what a malformed address never gets to. */
export const BEYOND_FORMAT: readonly BooleanCheck[] = [
  'domainExists',
  'hasMx',
  'domainReachable',
  'isDisposable',
  'isRole',
  'isBlacklisted',
  'isKnownProvider',
  'isCatchAll',
];

/** The interface's verification result (docs/api.md "Resources"), and our additional fields. */
/** Which of an account's events decided a verdict: the bounce or the delivery, when, and where it came from. */
export interface DecidingEvidence {
  kind: 'bounce' | 'delivery';
  at: string;
  source: string;
}

export interface VerificationResult {
  email: string;
  result: Verdict;
  checks: Checks;
  reason: string;
  /** Why, as a stable code (reason-codes.ts). */
  reasonCode: ReasonCode;
  /**
   * The checks whose `false` is not a finding but an absence of one (DNS failed, the domain was
   * never looked up, the catch-all probe got no answer): the contract's JSON keeps its booleans,
   * and CSV, human output and the dashboard leave these cells blank. Absent when every check was established.
   */
  notEstablished?: BooleanCheck[];
  /** The address with its domain corrected, when the domain takes no mail and looks like a typo of a provider's ("did you mean"). */
  suggestion?: string;
  /** When the verdict was found, on a result the service reused from an earlier verification (its result cache); absent on a fresh one. */
  verifiedAt?: string;
  /**
   * While the answer is temporary and the address waits for its next try in a job (docs/architecture.md
   * "Settling later"): when that try is due (ISO). The result is then not final.
   */
  nextAttemptAt?: string;
  /** The account's own evidence that decided the verdict (docs/evidence.md "How evidence decides a verdict"); absent when none did. */
  evidence?: DecidingEvidence;
  /** Set on every answer of the sandbox (sandbox.ts): a test token's or `--sandbox`'s, no server asked. */
  sandbox?: true;
  /**
   * Set when every mail host's provider rule says it reads a local part's ASCII letters in any case
   * as one mailbox (`foldsCase`): only then may a verdict about this spelling stand for another. Not
   * the interface's (resultJson leaves it out): the service's result cache reads it.
   */
  foldsCase?: true;
  /**
   * How the verdict was reached, when `explain` was asked (transcript.ts): never kept (resultJson
   * leaves it out), so it reaches only the caller who asked.
   */
  details?: Explanation;
}

/** A check's value as a table cell: blank where it was not established. */
export function checkCell(result: VerificationResult, name: keyof Checks): string {
  return name !== 'smtpStatus' && result.notEstablished?.includes(name) ? '' : String(result.checks[name]);
}

/**
 * A result as the interface's JSON object (docs/api.md "Resources"): its four fields in its order, then
 * `reasonCode`, `notEstablished`, `suggestion`, `verifiedAt`, `nextAttemptAt` and `sandbox` when there are, then `row`, the source file
 * line, when the caller knows it (so that bulk output joins back to the list); whatever else the
 * object carries is left out. The one serialisation shared by `verify --json`, bulk json/ndjson
 * and the stores.
 */
export function resultJson(
  { email, result, checks, reason, reasonCode, notEstablished, suggestion, verifiedAt, nextAttemptAt, evidence, sandbox }: VerificationResult,
  row?: number,
): string {
  // JSON.stringify leaves out the properties that are undefined.
  return JSON.stringify({ email, result, checks, reason, reasonCode, notEstablished, suggestion, verifiedAt, nextAttemptAt, evidence, sandbox, row });
}

/** Every engine option of docs/architecture.md "The engine"; flags and environment names live in src/cli/options/engine-flags.ts. */
export interface EngineOptions {
  /** `ip[:port]` of the DNS servers to ask; empty means the system resolver. */
  dnsServers: string[];
  /** Time one DNS query may take before it counts as a DNS failure. */
  dnsTimeoutMs: number;
  /** TCP port of the SMTP servers probed (25 in the wild, another on test fixtures). */
  smtpPort: number;
  /** Name sent in EHLO/HELO: ours, never the target's. */
  heloName: string;
  /** Envelope sender of the probe: an address of ours, never the target address. */
  mailFrom: string;
  connectTimeoutMs: number;
  /** Budget of every single SMTP command (greeting, EHLO, MAIL, RCPT, ...). */
  commandTimeoutMs: number;
  /** How many SMTP sessions may be open at once in all. */
  concurrency: number;
  /** How many SMTP sessions may be open at once to one MX host. */
  perHostConcurrency: number;
  /**
   * When an address whose answer was temporary (greylisting, throttling, a timeout) is asked again,
   * in ms after its first answer; empty: never (docs/architecture.md "Settling later"). The engine
   * itself answers in one pass: whoever keeps the address until then (the job runner) asks again.
   */
  retryScheduleMs: readonly number[];
  /** DNSBL zones asked about the domain and its MX addresses. */
  dnsblZones: string[];
  /** Whether `domainReachable` is checked at all. */
  webCheck: boolean;
  /** Ports tried for `domainReachable`: 443 speaks HTTPS, any other plain HTTP. */
  webPorts: number[];
  /** Off by default: hosts resolving to loopback, private, link-local, CGNAT or metadata addresses are not contacted. */
  allowPrivateNetworks: boolean;
  /**
   * `socks5://[user:pass@]host:port` each: SMTP connections go through these proxies (the web check
   * does not), each one egress of the pool (net/egress-pool.ts); empty for none.
   */
  proxies: string[];
  /**
   * Local IP addresses SMTP connections are made from: each one egress without proxies, the one
   * address the proxies are reached from with them; empty lets the system choose.
   */
  sourceAddresses: string[];
  /**
   * How long an egress stays benched at a provider that refused it for reputation, when the pool
   * has another egress to ask through (docs/architecture.md "Egress").
   */
  egressCooldownMs: number;
  /**
   * Mail hosts (names or addresses) that confirm a suspected blocked port 25 (net/port25.ts): hosts
   * no customer picks. Empty: the providers' mail hosts (the MX of gmail.com, outlook.com, yahoo.com).
   */
  port25CheckHosts: string[];
  /** The operator's provider rules file, over the built-in data/provider-rules.json; null for the built-in rules alone. */
  providerRulesFile: string | null;
}

export interface VerifyOptions {
  /**
   * `interactive` for an answer someone waits for (`POST /v1/verify`): its SMTP sessions take the
   * next free slot at a host before any bulk session, and bulk sessions holding the host's slots
   * end after their current answer to make room, so it never queues behind a long list. The
   * per-host and global session limits hold for it as for everything else.
   */
  priority?: 'interactive' | 'bulk';
  /**
   * Record how the verdict is reached (`--explain`): the mail hosts tried, the egress, every SMTP line
   * with its time, what was reused; the result carries it as `details`. Its sessions are its own,
   * shared with no other domain's work, so the transcript holds nothing but this address's.
   */
  explain?: boolean;
}

/** Who watches the engine's SMTP conversations (the service's metrics), by MX host name. */
export interface SmtpObserver {
  sessionOpened(mxHost: string): void;
  sessionClosed(mxHost: string): void;
  /**
   * A RCPT reply, by what it means, through `egress` (its key, net/egress-key.ts); a refusal of our
   * egress is counted there even when the address is then asked through another.
   */
  rcptAnswered(mxHost: string, status: SmtpStatus, code: ReasonCode, egress: string): void;
  /** A session the host refused before any RCPT (greeting, EHLO, MAIL FROM), by what the refusal means, through `egress`. */
  sessionRefused?(mxHost: string, code: ReasonCode, egress: string): void;
}

/**
 * Session slots at mail hosts that other processes count too (the service's store: every `serve`
 * and `worker` on one database). Asked after this verifier's own per-host limit let a session
 * through; resolves once a slot is held, with the function that gives it back (call it once; it
 * resolves, never rejects, once the slot is free for others).
 */
export type SharedHostSlots = (
  hostAddress: string,
  limit: number,
  priority: NonNullable<VerifyOptions['priority']>,
  egress: string,
) => Promise<() => Promise<void>>;

/** One egress benched for one domain or at one provider (docs/architecture.md "Egress"): refused there for reputation. */
export interface EgressBench {
  /** The egress's key (net/egress-key.ts). */
  egress: string;
  /**
   * What the bench covers (net/egress-benches.ts `wholeProvider`): a domain's name, or `*.` and a
   * provider rule's suffix for a provider whose own check hosts refused the egress too.
   */
  provider: string;
  /** How long from now the bench lasts; a longer bench already there stays. */
  cooldownMs: number;
  /** The refusal that benched it, as the server said it. */
  reason: string;
}

/**
 * Where egress benches are kept: in the verifier itself (the default), or shared by every process
 * on the service's store, as host slots are. The engine asks `benched` now and then, not per session.
 */
export interface EgressBenches {
  bench(bench: EgressBench): Promise<void>;
  /** The egresses benched now for `provider` (a domain, or `*.suffix`: see EgressBench). */
  benched(provider: string): Promise<readonly string[]>;
}

/** What a verifier is told of, or asks, beyond its options: none of them are needed. */
export interface EngineHooks {
  /** Told of every SMTP session and RCPT answer. */
  observer?: SmtpObserver;
  /** A per-host session limit shared with other processes, beside this verifier's own. */
  sharedHostSlots?: SharedHostSlots;
  /** Egress benches shared with other processes; without, the verifier keeps its own. */
  egressBenches?: EgressBenches;
}

export interface VerifyManyOptions {
  /**
   * Once aborted, no address of this call is asked at an SMTP server any more (those still queued
   * get an `unknown` answer at once): the work is someone else's now (a lease lost).
   */
  signal?: AbortSignal;
  /**
   * Whose work this is (the service passes the job's user): bulk sessions waiting for a slot are
   * served share by share, the share holding the fewest slots first, so one share's long list does
   * not hold another's short one back. Calls without a share are one share together.
   */
  share?: string;
}

export interface Verifier {
  /** Verify one address; never throws for network or DNS trouble (that is an `unknown` verdict). */
  verify(email: string, options?: VerifyOptions): Promise<VerificationResult>;
  /**
   * Verify many addresses, grouped by domain, streaming each result to `onResult` as it completes.
   * Resolves when every address has had exactly one result.
   */
  verifyMany(emails: Iterable<string>, onResult: (result: VerificationResult) => void | Promise<void>, options?: VerifyManyOptions): Promise<void>;
}
