/**
 * The provider rules file format (docs/architecture.md "Provider rules"): a JSON object keyed by MX
 * host suffix, each rule a few known fields. Checked whole before use: a rule misread would probe a
 * provider harder than it allows, or turn its meaningless 250s into `valid`.
 */
import { parseProxyUrl, ProxyUrlError } from '../net/proxy-url.js';

/** What is known about the mail hosts under one suffix; every field but `source` may be left out. */
export interface ProviderRule {
  /** SMTP sessions open at once per host (never more than the engine's perHostConcurrency). */
  sessionLimit?: number;
  /** RCPT commands per session; then the session ends and another is opened. */
  rcptsPerSession?: number;
  /** Milliseconds between sessions at one host. */
  pauseMs?: number;
  /** Do not ask a random address: the answer would prove nothing there. */
  skipCatchAllProbe?: boolean;
  /** False where the hosts accept every RCPT, so a 250 is no proof the mailbox exists. */
  acceptProvesMailbox?: boolean;
  /**
   * False where the hosts' answer for `postmaster@` says nothing about us (they take postmaster
   * from any sender, or refuse it to all): the postmaster control is not asked there, and a
   * refusal no reply row reads keeps the table's reading (docs/architecture.md "What a reply means").
   */
  postmasterProvesSender?: boolean;
  /**
   * True where the hosts read a local part's ASCII letters in any case as one mailbox (Gmail,
   * Outlook, Yahoo, iCloud): only there may a verdict about one spelling be reused for another.
   */
  foldsCase?: boolean;
  /** `socks5://host:port`: SMTP connections to these hosts go through this proxy. */
  proxy?: string;
  /**
   * The provider's own mail domains (`microsoft.com`), whose MX hosts under this suffix are its
   * check hosts: no customer picks them, so only their refusal of an egress benches it at the whole
   * provider (docs/architecture.md "Egress").
   */
  checkHosts?: string[];
  /** Where the knowledge comes from: a URL, a document, or "observed" / "operator experience". */
  source: string;
}

export type ProviderRuleTable = Record<string, ProviderRule>;

/** A rules file that cannot be used: names the file, the line and the field (never a proxy's value: it may hold a password). */
export class ProviderRulesError extends Error {
  override name = 'ProviderRulesError';
  constructor(
    readonly file: string,
    readonly line: number,
    readonly field: string,
    problem: string,
  ) {
    super(`provider rules ${file} line ${line}: ${field}: ${problem}`);
  }
}

type Check = (value: unknown) => string | null;

const wholeNumber =
  (min: number, max: number): Check =>
  (value) =>
    Number.isInteger(value) && (value as number) >= min && (value as number) <= max ? null : `must be a whole number from ${min} to ${max}`;
const yesOrNo: Check = (value) => (typeof value === 'boolean' ? null : 'must be true or false');
const words: Check = (value) => (typeof value === 'string' && value.trim() !== '' ? null : 'must be a non-empty string');
const proxyUrl: Check = (value) => {
  if (typeof value !== 'string') return 'must be a socks5:// URL';
  try {
    parseProxyUrl(value);
    return null;
  } catch (error) {
    if (error instanceof ProxyUrlError) return error.message;
    throw error;
  }
};

/** A host name suffix of two labels or more, as nameAndParents gives them: lower-case ASCII. */
const SUFFIX = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/;

/** At most this many check domains: each is asked at every confirmation. */
const MAX_CHECK_HOSTS = 5;
const checkDomains: Check = (value) =>
  Array.isArray(value) && value.length > 0 && value.length <= MAX_CHECK_HOSTS && value.every((domain) => typeof domain === 'string' && SUFFIX.test(domain))
    ? null
    : `must be a list of 1 to ${MAX_CHECK_HOSTS} lower-case mail domains of the provider's own, such as microsoft.com`;

const FIELDS: Record<keyof ProviderRule, Check> = {
  sessionLimit: wholeNumber(1, 1_000),
  rcptsPerSession: wholeNumber(1, 1_000),
  pauseMs: wholeNumber(0, 3_600_000),
  skipCatchAllProbe: yesOrNo,
  acceptProvesMailbox: yesOrNo,
  postmasterProvesSender: yesOrNo,
  foldsCase: yesOrNo,
  proxy: proxyUrl,
  checkHosts: checkDomains,
  source: words,
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The 1-based line of character `index`. */
const lineAt = (text: string, index: number): number => text.slice(0, Math.max(index, 0)).split('\n').length;

/** Where `"key":` first appears at or after `from`, or -1. */
function keyIndex(text: string, key: string, from: number): number {
  const pattern = new RegExp(`${JSON.stringify(key).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*:`, 'g');
  pattern.lastIndex = from;
  return pattern.exec(text)?.index ?? -1;
}

/** The line of a rule's key, or of one field inside it: what the operator has to look at. */
function lineOf(text: string, suffix: string, field?: string): number {
  const rule = keyIndex(text, suffix, 0);
  if (rule < 0) return 1;
  const inside = field === undefined ? -1 : keyIndex(text, field, rule);
  return lineAt(text, inside < 0 ? rule : inside);
}

function parse(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    // V8 says where: "... in JSON at position 42".
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    const line = position === undefined ? 1 : lineAt(text, Number(position));
    throw new ProviderRulesError(file, line, '(syntax)', `not valid JSON: ${(error as Error).message}`);
  }
}

/** The rules of a file's text, every key and field checked; `file` is only for the messages. */
export function parseProviderRules(file: string, text: string): ProviderRuleTable {
  const table = parse(file, text);
  if (!isObject(table)) throw new ProviderRulesError(file, 1, '(top level)', 'must be an object keyed by MX host suffix');
  for (const [suffix, rule] of Object.entries(table)) {
    const fail = (field: string | undefined, problem: string): never => {
      throw new ProviderRulesError(file, lineOf(text, suffix, field), field === undefined ? `"${suffix}"` : `"${suffix}".${field}`, problem);
    };
    if (!SUFFIX.test(suffix)) fail(undefined, 'must be a lower-case MX host suffix of two labels or more, such as google.com');
    if (!isObject(rule)) fail(undefined, 'must be an object of rule fields');
    for (const [field, value] of Object.entries(rule as Record<string, unknown>)) {
      if (!Object.hasOwn(FIELDS, field)) fail(field, `unknown field (known: ${Object.keys(FIELDS).join(', ')})`);
      const problem = FIELDS[field as keyof ProviderRule](value);
      if (problem !== null) fail(field, problem);
    }
    if (!('source' in (rule as object))) fail(undefined, 'has no source: say where the rule comes from ("observed" when nothing documents it)');
  }
  return table as ProviderRuleTable;
}
