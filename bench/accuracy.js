/**
 * Accuracy on public material (issue 11): the syntax check on the public-suite table
 * (test/support/corpora/syntax-cases.json) and the RCPT reply table on real replies
 * (test/support/corpora/rcpt-replies.json), ours against each npm peer that has such a part.
 * No network, no timing: each tool answers every case once.
 *
 *   node bench/accuracy.js
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { crossSourceAccuracy } from './accuracy/cross-source.js';
import { missingRow, row, runAlone } from './lib/report.js';

const SECTION = 'accuracy';
const CORPORA = new URL('../test/support/corpora/', import.meta.url);
const DIST_FORMAT = new URL('../dist/engine/checks/format.js', import.meta.url);
const DIST_REPLIES = new URL('../dist/engine/smtp/reply-table.js', import.meta.url);
const DIST_PARSE = new URL('../dist/engine/smtp/reply.js', import.meta.url);
const AT_PAR = { on: 'ratio', op: '>=', value: 1 };
/** Issue 21's goal for replies never seen. */
const UNSEEN_GOAL = { on: 'ours', op: '>=', value: 97 };
/** No reply about the sender may come out `invalid` (issue 28). */
const FALSE_INVALID_GOAL = { on: 'ours', op: '<=', value: 0 };

/** The collection a corpus reply was read from: the unit held out together in the coarser split. */
const COLLECTIONS = [
  [/sisimai/i, 'sisimai'],
  [/PHPMailer-BMH/, 'PHPMailer-BMH'],
  [/smtp\.codes/, 'smtp.codes'],
  [/reacher/i, 'Reacher'],
  [/support\.google|help\.yahoo|spamresource|postmaster|Gmail RCPT/i, 'provider pages'],
  [/^(Postfix|Exim|OpenSMTPD|sendmail|qmail|postgrey|milter-greylist|RFC|issue)\b/, 'MTA sources and RFCs'],
];
const collectionOf = (entry) => COLLECTIONS.find(([pattern]) => pattern.test(entry.source))?.[1] ?? entry.source.split(' ')[0];

const readJson = async (name) => JSON.parse(await readFile(new URL(name, CORPORA), 'utf8'));

/** Each peer's own syntax check, address → valid?, as its users call it. */
const SYNTAX_PEERS = {
  'deep-email-validator': async () => {
    const { validate } = await import('deep-email-validator');
    const off = { validateMx: false, validateTypo: false, validateDisposable: false, validateSMTP: false };
    return async (email) => (await validate({ email, ...off })).valid;
  },
  // email-verify checks the structure with validator.js's isEmail, the copy it depends on.
  'email-verify': async () => {
    const requireFromPeer = createRequire(createRequire(import.meta.url).resolve('email-verify'));
    const { isEmail } = requireFromPeer('validator');
    return async (email) => isEmail(email);
  },
  '@emailcheck/email-validator-js': async () => {
    const { isValidEmail } = await import('@emailcheck/email-validator-js');
    return async (email) => isValidEmail(email);
  },
};

/** Share of `cases` where `answer(case)` equals `truth(case)`, as a percentage; a throw is a wrong answer. */
async function percentRight(cases, answer, truth) {
  let right = 0;
  for (const entry of cases) {
    const given = await Promise.resolve()
      .then(() => answer(entry))
      .catch(() => undefined);
    if (given === truth(entry)) right++;
  }
  return (100 * right) / cases.length;
}

async function syntaxRows() {
  const cases = await readJson('syntax-cases.json');
  const { checkFormat } = await import(DIST_FORMAT.href);
  const ours = (entry) => (checkFormat(entry.address).ok ? 'valid' : 'invalid');
  const oursVsExpected = await percentRight(cases, ours, (entry) => entry.expected);
  const oursVsSuites = await percentRight(cases, ours, (entry) => entry.suite);
  const rows = [];
  for (const [name, load] of Object.entries(SYNTAX_PEERS)) {
    const check = await load();
    const peer = async (entry) => ((await check(entry.address)) ? 'valid' : 'invalid');
    const raw = { cases: cases.length };
    rows.push(
      row({
        section: SECTION,
        metric: `syntax vs ${name}: ${cases.length} public-suite cases, our expectations`,
        unit: '%',
        ours: oursVsExpected,
        baselineName: name,
        baseline: await percentRight(cases, peer, (entry) => entry.expected),
        target: AT_PAR,
        raw,
      }),
      row({
        section: SECTION,
        metric: `syntax vs ${name}: the suites' own answers`,
        unit: '%',
        ours: oursVsSuites,
        baselineName: name,
        baseline: await percentRight(cases, peer, (entry) => entry.suite),
        target: null,
        raw,
      }),
    );
  }
  return rows;
}

/**
 * @emailcheck's `parseSmtpError` read as a status: a missing or disabled mailbox is invalid, a full
 * one unknown, and `isInvalid` ("nothing else matched, not a known transient pattern") invalid.
 */
async function emailcheckReplyStatus() {
  const { parseSmtpError } = await import('@emailcheck/email-validator-js');
  return (line) => {
    const parsed = parseSmtpError(line);
    if (parsed.hasFullInbox) return 'unknown';
    return parsed.isDisabled || parsed.isInvalid ? 'invalid' : 'unknown';
  };
}

async function replyRows() {
  // Refusals only: the peer's classifier reads error messages, and a 2xx is no error.
  const replies = (await readJson('rcpt-replies.json')).filter((entry) => !entry.reply.startsWith('2'));
  const { parseReply } = await import(DIST_PARSE.href);
  const { replyKind, statusOfKind } = await import(DIST_REPLIES.href);
  const ours = await percentRight(
    replies,
    (entry) => statusOfKind(replyKind(parseReply([entry.reply]))),
    (entry) => entry.status,
  );
  const peerStatus = await emailcheckReplyStatus();
  const peer = await percentRight(
    replies,
    (entry) => peerStatus(entry.reply),
    (entry) => entry.status,
  );
  const raw = { replies: replies.length, providers: new Set(replies.map((entry) => entry.provider)).size };
  return [
    row({
      section: SECTION,
      metric: `reply status vs @emailcheck/email-validator-js: ${replies.length} real refusals`,
      unit: '%',
      ours,
      baselineName: 'parseSmtpError',
      baseline: peer,
      target: AT_PAR,
      raw,
    }),
    ...(await crossSourceRows()),
    missingRow(
      SECTION,
      'reply status vs deep-email-validator, email-verify',
      null,
      'neither exposes a reply classifier: each reads RCPT replies inside its own probe (the engine section scores those probes)',
    ),
  ];
}

/** What the engine makes of a kind for a reply: a refusal no row reads goes to the postmaster control. */
function withPostmasterControl(statusOfKind) {
  // RFC 5321 §4.5.1: postmaster is refused only when the refusal is about us (labelled `about: sender`).
  return (kind, entry) => (kind === 'unreadable-refusal' ? (entry.about === 'sender' ? 'unknown' : 'invalid') : statusOfKind(kind));
}

/** Replies labelled as being about the sender (our IP, HELO, sender, authentication) that came out `invalid`. */
const falseInvalids = (scored) => scored.filter(({ entry, status }) => entry.about === 'sender' && status === 'invalid');

/**
 * The reply table on replies it was not built from (bench/accuracy/cross-source.js): every real
 * reply, accepted ones too, scored while its provider (then its whole collection) is held out,
 * against the same table in sample; with the postmaster control as the engine asks it, and the
 * table alone. Then, per language, the share right and the replies about the sender read as
 * `invalid` (what a list cleaner would delete for our fault).
 */
async function crossSourceRows() {
  const corpus = await readJson('rcpt-replies.json');
  const { parseReply } = await import(DIST_PARSE.href);
  const { REPLY_RULES, statusOfKind } = await import(DIST_REPLIES.href);
  const entries = corpus.map((entry) => ({ ...entry, language: entry.language ?? 'en', parsed: parseReply([entry.reply]) }));
  const alone = { rules: REPLY_RULES, statusOfKind, fallbackKind: 'rejected' };
  const controlled = { ...alone, statusOf: withPostmasterControl(statusOfKind) };
  const rows = [];
  for (const [unit, groupOf] of [
    ['provider', (entry) => entry.provider],
    ['collection', collectionOf],
  ]) {
    for (const [how, table] of [
      ['with the postmaster control', controlled],
      ['table alone', alone],
    ]) {
      const measured = crossSourceAccuracy(table, entries, groupOf);
      const raw = {
        replies: entries.length,
        groups: measured.groups,
        missed: measured.missed,
        falseInvalid: falseInvalids(measured.scored).map(({ entry }) => entry.reply),
      };
      rows.push(
        row({
          section: SECTION,
          metric: `reply status, each ${unit} held out, ${how}: ${entries.length} replies, ${measured.groups} ${unit}s`,
          unit: '%',
          ours: measured.percent,
          baselineName: 'in sample',
          baseline: measured.inSamplePercent,
          target: how === 'table alone' ? null : UNSEEN_GOAL,
          raw,
        }),
      );
      if (unit === 'provider') rows.push(...languageRows(measured.scored, how));
    }
  }
  return rows;
}

/** Per language: the share right held out by provider, and the false invalids among the replies about the sender. */
function languageRows(scored, how) {
  const languages = [...new Set(scored.map(({ entry }) => entry.language))].sort();
  return languages.flatMap((language) => {
    const mine = scored.filter(({ entry }) => entry.language === language);
    const right = mine.filter(({ entry, status }) => entry.status === status).length;
    const aboutSender = mine.filter(({ entry }) => entry.about === 'sender').length;
    const wrong = falseInvalids(mine);
    const control = how !== 'table alone';
    return [
      row({
        section: SECTION,
        metric: `reply status held out by provider, ${how}, ${language}: ${mine.length} replies`,
        unit: '%',
        ours: (100 * right) / mine.length,
        baselineName: '',
        baseline: null,
        target: control ? UNSEEN_GOAL : null,
      }),
      row({
        section: SECTION,
        metric: `replies about the sender read as invalid, ${how}, ${language}: of ${aboutSender}`,
        unit: 'replies',
        ours: wrong.length,
        baselineName: '',
        baseline: null,
        target: control ? FALSE_INVALID_GOAL : null,
        raw: { replies: wrong.map(({ entry }) => entry.reply) },
      }),
    ];
  });
}

export async function run() {
  if (!existsSync(DIST_FORMAT)) return [missingRow(SECTION, 'syntax and reply accuracy', AT_PAR, 'not built yet: dist/engine (npm run build)')];
  return [...(await syntaxRows()), ...(await replyRows())];
}

await runAlone(import.meta.url, SECTION, run);
