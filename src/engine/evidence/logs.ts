import { enhancedStatus, evidenceAddress, isoTime, makeEvent, type EvidenceEvent, type EvidenceKind } from './event.js';

/**
 * MTA logs, one line at a time: Postfix (`to=<…>, … dsn=5.1.1, status=bounced (…)`), Exim's main
 * log (`** addr … : reply`, `=> addr` delivered, `== addr` deferred) and Sendmail (`to=<…>, … dsn=…,
 * stat=…`). A line of none of them is no event (logs are mostly other lines) and no skip either.
 */

export type LogFlavour = 'postfix' | 'exim' | 'sendmail';

const POSTFIX = /\bpostfix(?:\/[\w/-]+)?\[\d+\]: [0-9A-Za-z]+: to=<([^>]*)>,.*?\bstatus=(bounced|sent|deferred)\b(?: \((.*)\))?/;
const SENDMAIL = /\bsendmail\[\d+\]: \w+: to=(.*?), (?:.*?\b)?stat=(.*)$/;
const EXIM = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?(?: [+-]\d{4})?) (?:\[\d+\] )?\S+ (\*\*|=>|->|==) (\S+)(.*)$/;

/** Which MTA wrote a line, when one of them did. */
export function logFlavour(line: string): LogFlavour | null {
  if (POSTFIX.test(line)) return 'postfix';
  if (SENDMAIL.test(line)) return 'sendmail';
  if (EXIM.test(line)) return 'exim';
  return null;
}

/** The events of one log line; null for a line that reports no delivery, a sentence for one that cannot be read. */
export function logLineEvents(line: string, source: string | undefined, now: Date): EvidenceEvent[] | string | null {
  return postfixLine(line, source, now) ?? sendmailLine(line, source, now) ?? eximLine(line, source);
}

const UNREADABLE = 'a delivery line without a recipient address or a time';

function postfixLine(line: string, source: string | undefined, now: Date): EvidenceEvent[] | string | null {
  const match = POSTFIX.exec(line);
  if (!match) return null;
  const email = evidenceAddress(match[1]!);
  const at = syslogTime(line, now);
  if (email === null || at === null) return UNREADABLE;
  const kind: EvidenceKind = match[2] === 'sent' ? 'delivery' : match[2] === 'deferred' ? 'deferral' : 'bounce';
  const status = /\bdsn=(\d\.\d{1,3}\.\d{1,3})/.exec(line)?.[1];
  // "host mx[192.0.2.1] said: 550 5.1.1 … (in reply to RCPT TO command)": the server's words.
  const words = match[3] ?? '';
  const diagnostic = (/\bsaid: (.*?)(?: \(in reply to [^)]*\))?$/.exec(words)?.[1] ?? words).trim();
  return [makeEvent({ email, kind, at, status, diagnostic: kind === 'delivery' ? undefined : diagnostic, source: source ?? 'postfix' })];
}

function sendmailLine(line: string, source: string | undefined, now: Date): EvidenceEvent[] | string | null {
  const match = SENDMAIL.exec(line);
  if (!match) return null;
  const at = syslogTime(line, now);
  const stat = match[2]!.trim();
  if (at === null) return UNREADABLE;
  const kind: EvidenceKind = /^sent\b/i.test(stat) ? 'delivery' : /^deferred\b/i.test(stat) ? 'deferral' : 'bounce';
  const status = /\bdsn=(\d\.\d{1,3}\.\d{1,3})/.exec(line)?.[1];
  const diagnostic = kind === 'delivery' ? undefined : stat.replace(/^deferred:\s*/i, '');
  const emails = match[1]!
    .split(',')
    .map((part) => evidenceAddress(part))
    .filter((email): email is string => email !== null);
  if (emails.length === 0) return UNREADABLE;
  return emails.map((email) => makeEvent({ email, kind, at, status, diagnostic, source: source ?? 'sendmail' }));
}

function eximLine(line: string, source: string | undefined): EvidenceEvent[] | string | null {
  const match = EXIM.exec(line);
  if (!match) return null;
  const at = eximTime(match[1]!);
  const email = evidenceAddress(match[3]!.replace(/:$/, ''));
  if (email === null || at === null) return UNREADABLE;
  const kind: EvidenceKind = match[2] === '**' ? 'bounce' : match[2] === '==' ? 'deferral' : 'delivery';
  if (kind === 'delivery') return [makeEvent({ email, kind, at, source: source ?? 'exim' })];
  const rest = match[4]!;
  // "… H=mx [192.0.2.1]: SMTP error from remote mail server after RCPT TO:<…>: 550 5.1.1 …", or "…: Unrouteable address".
  const diagnostic = /: ([245]\d\d[ -].*)$/.exec(rest)?.[1] ?? rest.slice(rest.lastIndexOf(': ') + 2).trim();
  return [makeEvent({ email, kind, at, status: enhancedStatus(diagnostic), diagnostic, source: source ?? 'exim' })];
}

/** "2024-01-01 00:00:00[.123] [+0100]": without a zone, taken as UTC. */
function eximTime(text: string): string | null {
  const [date, time, zone] = text.split(' ');
  return isoTime(`${date}T${time}${zone === undefined ? 'Z' : zone.replace(/(\d\d)(\d\d)$/, '$1:$2')}`);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * A syslog line's time: RFC 5424/ISO 8601 as written, or the classic "Mmm dd hh:mm:ss" (no year, no
 * zone: taken as UTC, in the latest year that does not put it in the future).
 */
export function syslogTime(line: string, now: Date): string | null {
  const iso = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?)/.exec(line);
  if (iso) return isoTime(/[Z+-]\d\d:?\d\d$|Z$/.test(iso[1]!.slice(19)) ? iso[1]! : `${iso[1]}Z`);
  const classic = /^([A-Z][a-z]{2}) +(\d{1,2}) (\d\d):(\d\d):(\d\d)/.exec(line);
  if (!classic) return null;
  const month = MONTHS.indexOf(classic[1]!.toLowerCase());
  if (month < 0) return null;
  const [day, hours, minutes, seconds] = [2, 3, 4, 5].map((index) => Number(classic[index]));
  let date = new Date(Date.UTC(now.getUTCFullYear(), month, day, hours, minutes, seconds));
  if (date.getTime() > now.getTime() + 86_400_000) date = new Date(Date.UTC(now.getUTCFullYear() - 1, month, day, hours, minutes, seconds));
  return date.toISOString();
}
