/**
 * The RCPT reply → meaning table, as data (docs/architecture.md "The engine": meaning decides, not the code alone).
 *
 * Each row matches a reply by its code, its RFC 3463 enhanced code and its text (every field it
 * has must match); the first matching row wins, so the text can override the code both ways: a
 * 5.2.1 that says "receiving mail at a rate" is a rate limit, a 5.7.1 that says "User unknown" a
 * missing mailbox. The last rows fall back to the code alone. Every row carries at least one real
 * reply line and where it was seen; test/unit/smtp-reply.test.ts replays each against the table
 * and test/support/corpora/rcpt-replies.json holds the wider set of real replies it is scored on.
 *
 * Sources, cited per example:
 * - sisimai's bounce corpus (github.com/sisimai/p5-sisimai, set-of-emails/maildir/bsd/*.eml):
 *   real bounces with their domains replaced by example ones; "sisimai lhost-postfix-59" is that file.
 * - MTA sources: Postfix (src/smtpd/smtpd_check.c), Exim (src/src/smtp_in.c, configure.default),
 *   OpenSMTPD (usr.sbin/smtpd/lka_session.c), sendmail, qmail, postgrey; RFC 5321 §3.4, §3.5.3.
 * - provider postmaster pages: Google (support.google.com/a/answer/3726730), Yahoo
 *   (help.yahoo.com SLN3444, postmaster.yahooinc.com/error-codes), Microsoft (via spamresource.com).
 * - Reacher (github.com/reacherhq/check-if-email-exists, core/src/smtp/parser.rs): replies quoted in
 *   its comments, each seen on a named domain.
 * - PHPMailer-BMH's rule samples (github.com/hippich/PHPMailer-BMH), the replies smtp.codes lists
 *   for Rackspace, AT&T and Barracuda, and Coremail's bounce wordings (its support pages).
 * - ActiveCampaign's SMTP field manual (github.com/ActiveCampaign/smtp-field-manual,
 *   data/codes/*.json): replies per provider and per filtering gateway (Proofpoint, Mimecast,
 *   Barracuda, Trend Micro, Exchange Online, ...), with notes on what each means.
 *
 * A permanent refusal no row reads is `unreadable-refusal` (invalid): on replies from sources the
 * table was not built from, that reading is right more often than `unknown` (bench/accuracy.js).
 * So the rows above it that name a cause other than the mailbox (blocks, policy, server faults,
 * limits, the sender, "try later") are what keeps such refusals unknown.
 */

/** What a reply to `RCPT TO` tells us about the mailbox (or about us). */
export type ReplyKind =
  | 'accepted'
  /** 252: the server will take mail but does not say whether the mailbox exists. */
  | 'not-verified'
  | 'no-such-mailbox'
  | 'mailbox-disabled'
  /** The mailbox exists but is full: mail would bounce now, maybe not next week. */
  | 'mailbox-full'
  /** The domain's own mail host does not take mail for it: every sender's mail bounces. */
  | 'relay-denied'
  /** The recipient (or we) got too much mail too fast: says nothing against the mailbox. */
  | 'rate-limited'
  /** Greylisting, and only when the reply says so. */
  | 'greylisted'
  /** Any other "try again later". */
  | 'temporary'
  /** The server refuses our IP (DNSBL, reverse DNS, reputation), not the mailbox. */
  | 'blocked'
  /** A policy refusal (authentication, content rules, recipient preferences): no proof about the mailbox. */
  | 'policy'
  /** Our envelope sender was refused (Postfix and others report it at RCPT time). */
  | 'sender-rejected'
  /** The transaction is full: start a new one and ask again. */
  | 'too-many-recipients'
  /** The domain itself is unknown to the server that should take its mail. */
  | 'no-such-domain'
  /** A fault the server reports of itself (internal error, service unavailable): nothing about the mailbox. */
  | 'server-error'
  /**
   * A permanent refusal at RCPT whose words name no cause the table knows. Most such refusals mean
   * the mailbox or domain is not served there (measured on sources the table was not built from:
   * bench/accuracy.js); the rows above that name a non-mailbox cause decide otherwise.
   */
  | 'unreadable-refusal'
  /** Not a refusal class at all (a 1xx or 3xx to RCPT): the server is confused, nothing is learnt. */
  | 'rejected';

/** A real reply line and where it was seen. */
export interface ReplyExample {
  reply: string;
  source: string;
}

export interface ReplyRule {
  kind: ReplyKind;
  /** Must match the three-digit reply code when given. */
  code?: RegExp;
  /** Must match the RFC 3463 enhanced code when given (a reply without one does not match). */
  enhanced?: RegExp;
  /** Must match the reply text when given. */
  text?: RegExp;
  examples: readonly ReplyExample[];
}

/** One case-insensitive pattern from phrases (regex sources), any of which may match. */
function phrases(...sources: string[]): RegExp {
  return new RegExp(sources.join('|'), 'i');
}

const PERMANENT = /^5/;
const TRANSIENT = /^4/;

export const REPLY_RULES: readonly ReplyRule[] = [
  {
    // RFC 5321 §3.5.3: 252 promises to try delivery, and verifies nothing.
    kind: 'not-verified',
    code: /^252$/,
    examples: [
      { reply: '252 Cannot VRFY user, but will accept message and attempt delivery', source: 'RFC 5321 §3.5.3' },
      { reply: '252 2.5.2 Cannot VRFY user; try RCPT to attempt delivery (or try finger)', source: 'sendmail' },
    ],
  },
  {
    kind: 'accepted',
    code: /^2/,
    examples: [
      { reply: '250 2.1.5 Ok', source: 'Postfix' },
      { reply: '250 Accepted', source: 'Exim' },
      { reply: '251 User not local; will forward to <forward-path>', source: 'RFC 5321 §3.4' },
    ],
  },
  {
    kind: 'greylisted',
    code: TRANSIENT,
    text: /gr[ae]y-?list/i,
    examples: [
      {
        reply: '450 4.2.0 <someone@example.com>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/example.com.html',
        source: 'Postfix + postgrey',
      },
      { reply: '451 4.7.1 Greylisting in action, please come back later', source: 'milter-greylist' },
    ],
  },
  {
    // Before every row that reads a 5.1.x or 5.2.x as "no such / disabled mailbox".
    kind: 'rate-limited',
    text: phrases(
      String.raw`receiving mail (at a rate|too quickly)`,
      String.raw`rate.?limit`,
      String.raw`frequency limit`,
      String.raw`too many (recipients|messages|connections) (this hour|per hour|today|from)`,
      String.raw`sent (to )?too many (recipients|messages)`,
      String.raw`too many (concurrent )?(sessions|connections)`,
      String.raw`too much (e-?mail|mail) in a short`,
      String.raw`trop de connexions`,
      String.raw`exceeded (the )?(sending|message) rate`,
      String.raw`excessive volume`,
      String.raw`try again slower`,
      String.raw`max(imum)? (number of )?messages per (session|connection)`,
      String.raw`message rate limit`,
      String.raw`too many recent messages`,
      String.raw`organi[sz]ation queue quota`,
      String.raw`mailbox unavailable or access denied`,
    ),
    examples: [
      {
        reply:
          '550 5.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered. For more information, please visit https://support.google.com/mail/?p=ReceivingRate',
        source: 'Gmail (sisimai lhost-postfix-59)',
      },
      {
        reply: '450 4.2.1 The user you are trying to contact is receiving mail too quickly. Please resend your message at a later time.',
        source: 'Gmail (support.google.com/a/answer/3726730)',
      },
      {
        reply: '550 5.1.1 <kijitora@example.com> - 203.0.113.222 has sent to too many recipients this hour. IB607 <http://x.co/rlbounce>',
        source: 'GoDaddy (sisimai rhost-godaddy-03)',
      },
      { reply: '450 4.7.1 Error: too many recipients from 192.0.2.1', source: 'Postfix (smtpd_check.c, smtpd_client_recipient_rate_limit)' },
      {
        reply: '550 This message has exceeded the max number of messages per session. Open a new session and try again. IB510',
        source: 'GoDaddy (sisimai lib/Sisimai/Rhost/GoDaddy.pm)',
      },
      // Tencent documents it as a frequency limit, not a missing mailbox (sisimai Rhost/Tencent.pm: "speeding").
      { reply: '550 Mailbox unavailable or access denied', source: 'Tencent QQ Mail (ActiveCampaign smtp-field-manual data/codes/550.json)' },
    ],
  },
  {
    kind: 'too-many-recipients',
    enhanced: /^[45]\.5\.3$/,
    examples: [{ reply: '452 4.5.3 Error: too many recipients', source: 'Postfix (smtpd.c)' }],
  },
  {
    kind: 'too-many-recipients',
    text: /too many recipients/i,
    examples: [{ reply: '552 Too many recipients', source: 'NTT docomo (sisimai lhost-postfix-48)' }],
  },
  {
    // RFC 3463 X.1.7 and X.1.8: our sender's address or domain.
    kind: 'sender-rejected',
    enhanced: /^[45]\.1\.[78]$/,
    examples: [
      { reply: '553 5.1.8 Sender domain does not exist', source: 'sendmail' },
      { reply: '450 4.1.8 <verify@probe.example>: Sender address rejected: Domain not found', source: 'Postfix (reject_unknown_sender_domain)' },
    ],
  },
  {
    kind: 'sender-rejected',
    text: phrases(
      String.raw`sender (address )?(rejected|denied|invalid|unknown)`,
      String.raw`sender domain (does not|not|is not|must)`,
      String.raw`invalid sender`,
      String.raw`[eé]metteur|exp[eé]diteur|absender|remitente|mittente`,
      String.raw`sender account`,
      String.raw`sender verify failed`,
      String.raw`domain of sender address`,
    ),
    examples: [
      { reply: '501 5.1.0 Emetteur invalide. Invalid Sender. OFR004_405 [405]', source: 'Orange (sisimai lib/Sisimai/Rhost/FrancePTT.pm)' },
      {
        reply:
          '550 5.1.0 <bounce@mailer.example.com> sender rejected. Refer to Error Codes section at https://www.cox.com/residential/support/email-error-codes.html for more information. AUP#CDRBL',
        source: 'Cox (sisimai rhost-cox-01)',
      },
    ],
  },
  {
    // Authentication of our domain (SPF, DKIM, DMARC): about us, before the 5.1.x rows.
    kind: 'policy',
    text: /\b(spf|dkim|dmarc)\b|not allowed to send from|authentication checks? failed|unauthenticated/i,
    examples: [
      {
        reply:
          "550 5.1.0 192.0.2.222 is not allowed to send from <example.net> per it's SPF Record. Please inspect your SPF settings, and try again. IB508 <http://x.co/srbounce>",
        source: 'GoDaddy (sisimai lhost-office365-03)',
      },
      {
        reply: "550 5.7.26 Unauthenticated email from example.com is not accepted due to domain's DMARC policy.",
        source: 'Gmail (support.google.com/a/answer/3726730)',
      },
    ],
  },
  {
    // The server wants our SMTP AUTH: it takes no mail from strangers, whoever the recipient is.
    kind: 'policy',
    text: /authentication (is )?(required|not allowed)|must (first )?authenticate/i,
    examples: [
      { reply: '550 5.5.0 Authentification requise. Authentication Required. LPN105_402', source: 'La Poste (sisimai lib/Sisimai/Rhost/FrancePTT.pm)' },
    ],
  },
  {
    // A per-sender rule of the recipient's (members only, moderation): about who sends, not whether the mailbox exists.
    kind: 'policy',
    text: /not (allowed|permitted) to send (mail |e-?mail |messages? )?to\b/i,
    examples: [{ reply: '550 you are not allowed to send mail to <someone@example.org>', source: 'issue 28 (a real reply the table had not seen)' }],
  },
  {
    // Our HELO name refused (not fully qualified, no DNS, forged): about us, never the mailbox.
    kind: 'blocked',
    text: /\b(helo|ehlo)\b[^.;]{0,30}?\b(rejected|refused|invalid|denied|not)\b|\b(bad|invalid|forged|wrong) (helo|ehlo)\b/i,
    examples: [
      {
        reply: '504 5.5.2 <localhost>: Helo command rejected: need fully-qualified hostname',
        source: 'Postfix (smtpd_check.c, reject_non_fqdn_helo_hostname)',
      },
    ],
  },
  {
    // Our sending IP's reputation: a score, a private blocklist, whatever the wording around it.
    kind: 'blocked',
    text: phrases(
      String.raw`\bsbrs\b`,
      String.raw`senderbase`,
      String.raw`score (is )?too low`,
      String.raw`\b(black|bad|banned) ?ip\b`,
      String.raw`\bdnsbls?\b`,
    ),
    examples: [
      {
        reply: '554 smtp-fw-9107.amazon.com; SBRS score too low: http://www.senderbase.org/',
        source: 'Amazon (Reacher core/src/smtp/parser.rs, seen on @amazon.com)',
      },
      { reply: '550 black ip.', source: 'issue 28 (a real reply the table had not seen)' },
    ],
  },
  {
    // Our sender's domain as the From: header or MAIL FROM carries it (GoDaddy's IB506).
    kind: 'sender-rejected',
    text: /\bfrom: ?(domain|address)\b|\bvalid from\b/i,
    examples: [{ reply: '550 coolexample.com From: Domain is invalid. Provide a valid From: IB506', source: 'GoDaddy (sisimai lib/Sisimai/Rhost/GoDaddy.pm)' }],
  },
  {
    // Exchange Online's directory-based edge blocking: the recipient is not in the directory.
    kind: 'no-such-mailbox',
    code: PERMANENT,
    enhanced: /^5\.4\.1$/,
    text: /recipient address(es)? rejected ?: access denied/i,
    examples: [
      {
        reply: '550 5.4.1 Recipient address rejected: Access denied. For more information see https://aka.ms/EXOSmtpErrors',
        source: 'Microsoft 365 (spamresource.com, 2023-09)',
      },
      {
        reply: '550 5.4.1 All recipient addresses rejected : Access denied [#.eop-nam02.prod.protection.outlook.com]',
        source: 'Microsoft 365 (ActiveCampaign smtp-field-manual data/codes/550.json)',
      },
    ],
  },
  {
    // Only the domain's own mail hosts are asked: refusing to relay means it does not take this domain.
    kind: 'relay-denied',
    code: PERMANENT,
    text: phrases(
      String.raw`relay(ing)? (to \S+ )?(access )?(denied|not permitted|not allowed|prohibited|disallowed)`,
      String.raw`(not permitted to|not configured to|unable to|do not) relay`,
      String.raw`allowed rcpthosts`,
      String.raw`not local host`,
      String.raw`as a relay`,
      String.raw`does not accept mail`,
      String.raw`not accepting network messages`,
    ),
    examples: [
      { reply: '554 5.7.1 <someone@example.com>: Relay access denied', source: 'Postfix (smtpd_check.c)' },
      { reply: '550 relay not permitted', source: 'Exim (configure.default)' },
      { reply: "553 sorry, that domain isn't in my list of allowed rcpthosts (#5.7.1)", source: 'qmail' },
      {
        reply:
          '501 Rcpt-To validation failed: RCPT TO not accepted: 5.7.1 This system is not configured to relay mail (r) from <nekonyaans@p2.example.com> to <kijitora@example.jp> for 127.0.0.1',
        source: 'sisimai lhost-postfix-44',
      },
      { reply: '553 Relaying disallowed', source: 'Zoho (ActiveCampaign smtp-field-manual data/codes/553.json)' },
      // sisimai reads both as "notaccept", a hard bounce: the host takes no mail for the domain.
      { reply: '550 Host does not accept mail', source: 'sisimai lhost-sendmail-57' },
      {
        reply: '521 5.3.2 <notaccept@libsisimai.net>: Recipient address rejected: System not accepting network messages.',
        source: 'sisimai lhost-dragonfly-16',
      },
    ],
  },
  {
    kind: 'mailbox-full',
    enhanced: /^[45]\.2\.2$/,
    examples: [
      { reply: '552 5.2.2 <someone@example.com>: Mailbox full', source: 'Postfix + virtual quota' },
      { reply: '452 4.2.2 The email account that you tried to reach is over quota.', source: 'Gmail (support.google.com/a/answer/3726730)' },
    ],
  },
  {
    kind: 'mailbox-full',
    text: phrases(
      String.raw`quota`,
      // Any storage but the server's own ("insufficient system storage" is RFC 5321's 452, a server fault).
      String.raw`(?<!system )\bstorage\b`,
      String.raw`speicher(platz|volumen)`,
      String.raw`mailbox (is )?full`,
      // A mailbox word (not part of an address), then "full" in any language the corpus holds.
      String.raw`(?<![\w-])(mailbox|inbox|account|buz[oó]n|bo[iî]te|casella|postfach|skrzynka|caixa)\b[^.]{0,30}\b(full|llen[oa]|pleine?|pien[oa]|voll|pe[lł]n[aey]|chei[ao])\b`,
      String.raw`insufficient storage space`,
      String.raw`mail ?folder is full`,
      String.raw`exceeds allowed size`,
      String.raw`too many messages (in|on)`,
    ),
    examples: [
      { reply: '552 Requested mail action aborted: exceeded storage allocation, mailbox full', source: 'RFC 5321 §4.2.2 text' },
      { reply: '552 sorry, mailbox kijitora@example.org is over quota temporarily (#5.1.1)', source: 'MailFoundry (sisimai lhost-mailfoundry-02)' },
      { reply: '552 Error: disk quota exceeded', source: 'qmail (sisimai lhost-qmail-08)' },
      // Quota words under 5.1.1: the mailbox exists.
      {
        reply: '552 5.1.1 <example@comcast.net> recipient rejected - extended quota violation',
        source: 'Comcast (ActiveCampaign smtp-field-manual data/codes/552.json)',
      },
      {
        reply: '550 Benutzer hat das Speichervolumen überschritten. User has exhausted allowed storage space.',
        source: "Dovecot's quota_exceeded_message in German and English (a public mail server's dovecot.conf; issue 35)",
      },
      { reply: '550 mailbox lleno', source: 'TYPO3 direct_mail Readmail (its reason_text 551, mailbox full)' },
    ],
  },
  {
    // "temporarily locked, try again later" under a 5xx: the account exists and may come back.
    kind: 'temporary',
    code: PERMANENT,
    text: /\b(user|account|mailbox)\b[^;!]{0,50}?\btemporar(y|ily) (locked|disabled|suspended)/i,
    examples: [
      {
        reply: '550 5.7.1 <kijitora@example.com>: Recipient address rejected: User kijitora@example.com temporary locked. Please try again later!',
        source: 'sisimai lhost-amazonses-19',
      },
    ],
  },
  {
    kind: 'mailbox-disabled',
    code: PERMANENT,
    enhanced: /^5\.7\.13$/,
    examples: [{ reply: '525 5.7.13 <neko-nyaan@example.org>: Recipient address rejected: Disabled recipient address', source: 'sisimai lhost-dragonfly-27' }],
  },
  {
    kind: 'mailbox-disabled',
    code: PERMANENT,
    text: phrases(
      String.raw`\b(account|mailbox|inbox)\b[^.;:]{0,30}?\b(disabled|discontinued|deactivated|inactive|suspended|frozen|locked|blocked|closed|terminated|expired|not activated)\b`,
      String.raw`\buser\b[^.;:]{0,30}?\b(is )?(disabled|deactivated|inactive|suspended|frozen|locked)\b`,
      String.raw`\bis (now )?(disabled|deactivated|suspended)\b`,
      String.raw`\b(disabled|inactive|suspended|deactivated|closed) (recipient|user|account|mailbox|e-?mail address)`,
      String.raw`boite[^.]{0,30}archiv`,
      String.raw`compte[^.]{0,30}bloqu`,
      String.raw`konto[^.]{0,30}(gesperrt|deaktiviert)`,
      String.raw`cuenta[^.]{0,30}(bloqueada|desactivada|suspendida)`,
      String.raw`(conta|account|casella)[^.]{0,30}(bloqueada|desativada|bloccat|disattivat)`,
      String.raw`recipient address rejected: (inactive|disabled|blocked)\.?$`,
      String.raw`policy rejection on the target address`,
      String.raw`\bdeactivated\b`,
    ),
    examples: [
      { reply: '550 5.2.1 The email account that you tried to reach is disabled.', source: 'Gmail (support.google.com/a/answer/3726730)' },
      {
        reply:
          '554 delivery error: dd Sorry your message to someone@yahoo.com cannot be delivered. This mailbox is disabled (554.30). - mta1.mail.gq1.yahoo.com',
        source: 'Yahoo',
      },
      {
        reply:
          '554 delivery error: dd Sorry your message to mikeneko@example.com cannot be delivered. This account has been disabled or discontinued [#102]. - mta1.mail.example.com',
        source: 'Yahoo (sisimai lhost-x2-02)',
      },
      {
        reply: '550 5.5.0 Le compte du destinataire est bloque. The recipient account is blocked. LPN007_426',
        source: 'La Poste (sisimai rhost-franceptt-05)',
      },
      { reply: '550 Mailbox is frozen. See http://mail.i.ua/err/3/', source: 'i.ua (sisimai rhost-iua-01)' },
      { reply: '550 5.1.1 <someone@icloud.com>: inactive email address', source: 'iCloud (sisimai rhost-apple-04)' },
      { reply: '550 account closed - please contact info@pengutronix.de instead', source: 'pengutronix.de (quoted in a Linux kernel list thread)' },
      {
        reply: '540 5.7.1 <example@rambler.ru>: recipient address rejected: Inactive',
        source: 'Rambler (ActiveCampaign smtp-field-manual data/codes/540.json)',
      },
      // Yandex's words for an account blocked for breaking its terms (the field manual's note on it).
      { reply: '550 5.7.1 Policy rejection on the target address', source: 'Yandex (ActiveCampaign smtp-field-manual data/codes/550.json)' },
    ],
  },
  {
    // OpenSMTPD answers an address missing from its virtual table with a failed "expansion" (lka_session.c).
    kind: 'no-such-mailbox',
    code: PERMANENT,
    enhanced: /^5\.2\.4$/,
    examples: [{ reply: '524 5.2.4 Mailing list expansion problem: <nobody@example.org>', source: 'OpenSMTPD (lka_session.c)' }],
  },
  {
    kind: 'no-such-mailbox',
    code: PERMANENT,
    text: phrases(
      String.raw`user unknown`,
      String.raw`\buser \S+ unknown`,
      String.raw`addressee unknown`,
      String.raw`unknown (user|recipient|address|local part|or illegal)`,
      String.raw`not a member of`,
      String.raw`recipient (verify failed|cannot be verified)`,
      String.raw`no longer exists`,
      String.raw`(mailbox|user|recipient|address)\b[^.;]{0,60}\bnot found`,
      String.raw`mailbox \([^)]*\) not found`,
      String.raw`user <[^>]*> not ok`,
      String.raw`no such (user|mailbox|recipient|person|address)`,
      String.raw`user (does )?not exist`,
      String.raw`(user|recipient|mailbox|address|account) (not found|does ?n[o']t exist|is not exist)`,
      String.raw`\bdoes not exist`,
      String.raw`dosn't exist`,
      String.raw`does ?n[o'’]t have an? (\S+ )?account`,
      String.raw`no longer valid`,
      String.raw`mailbox (is |currently )*(unavailable|not available)`,
      String.raw`unavailable mail user`,
      String.raw`user not known`,
      String.raw`don'?t exists? that user`,
      String.raw`not (a )?user of this server`,
      String.raw`no mailbox`,
      String.raw`not a (valid|registered)\b[^.]{0,40}\b(mailbox|user|recipient|address)`,
      String.raw`invalid[- ](recipient|mailbox|address|e-?mail address|user)(?!s)`,
      String.raw`invalid final delivery userid`,
      String.raw`mailbox unallocated`,
      String.raw`recipient (invalid|rejected|unknown)`,
      String.raw`(^|: )(recipient )?address rejected\.?$`,
      String.raw`unrouteable`,
      String.raw`recip(ient)?notfound`,
      String.raw`not our (user|customer)`,
      String.raw`user not local`,
      String.raw`not listed in`,
      String.raw`no longer (on server|available|in use|active)`,
      String.raw`address is not handled`,
      String.raw`could not be found`,
      String.raw`adresse destinataire invalide`,
      String.raw`utilisateur inconnu`,
      String.raw`destinatario (inexistente|no existe|sconosciuto)`,
      String.raw`unbekannt`,
      String.raw`existiert nicht`,
      String.raw`не существует`,
      // Domino and Notes in Japanese: "(the user) is not found in the Domino directory", "not in the directory list".
      String.raw`ディレクトリ(には|に)見つかりません`,
      String.raw`ディレクトリのリストにありません`,
    ),
    examples: [
      { reply: '550 5.1.1 <nobody@example.com>: Recipient address rejected: User unknown in local recipient table', source: 'Postfix (local_recipient_maps)' },
      { reply: '550 Requested action not taken: mailbox unavailable', source: 'RFC 5321 §4.2.2 text' },
      { reply: '550 No Such User Here', source: 'RFC 5321 §3.3' },
      { reply: '511 sorry, no mailbox here by that name (#5.1.1)', source: 'qmail' },
      {
        reply: "554 delivery error: dd This user doesn't have a yahoo.com account (someone@yahoo.com) [0] - mta1.mail.gq1.yahoo.com",
        source: 'Yahoo (help.yahoo.com SLN3444)',
      },
      { reply: '550 Unrouteable address', source: 'Exim (smtp_in.c)' },
      { reply: '550 Invalid recipient', source: 'OpenSMTPD (lka_session.c)' },
      { reply: '550 5.7.1 550 User Unknown: sabineko@example.org', source: 'Oracle Messaging Server (sisimai lhost-messagingserver-03)' },
      { reply: '551 not our user', source: 'sisimai t/200-reason.t (a real Diagnostic-Code)' },
      { reply: '551 User not local; please try <forward-path>', source: 'RFC 5321 §3.4' },
      { reply: '550 <kijitora-nyaan@example.co.jp>... User not exist', source: 'McAfee (sisimai lhost-mcafee-05)' },
      { reply: "550 'kijitora@nyaan.example.com' is not a registered gateway user", source: 'sisimai rfc3464-35' },
      { reply: '550 <neko-nyaan@ne.auone-net.jp>: Recipient address rejected.', source: 'au (sisimai lhost-postfix-46)' },
      { reply: '550 5.5.0 Adresse destinataire invalide. Invalid recipient. LPN007_416', source: 'La Poste (sisimai lhost-sendmail-46)' },
      { reply: '550 User not found', source: 'Rakuten (sisimai lhost-postfix-76)' },
      {
        reply: '554 5.7.1 <example@example.com>: Recipient address rejected: Invalid-Recipient.',
        source: 'Trend Micro (ActiveCampaign smtp-field-manual data/codes/554.json)',
      },
      { reply: '550 5.1.1 <example@comcast.net> recipient mailbox unallocated', source: 'Comcast (ActiveCampaign smtp-field-manual data/codes/550.json)' },
      { reply: '550 Invalid final delivery userid: kijitora@neko.example.co.jp', source: 'Ipswitch IMail (sisimai lhost-imailserver-03)' },
      {
        reply: '550 ユーザー Neko (kijitora@example.co.jp) は Domino ディレクトリには見つかりません。',
        source: 'IBM Domino (sisimai lhost-domino-02, its X-Notes Diagnostic-Code)',
      },
    ],
  },
  {
    // The server that should take the domain's mail does not know the domain.
    kind: 'no-such-domain',
    code: PERMANENT,
    text: phrases(
      String.raw`host unknown`,
      String.raw`domain not found`,
      String.raw`no such domain`,
      String.raw`unknown domain`,
      String.raw`\bno-domain\b`,
      // How bounces say the recipient's domain has no mail host: the DNS answer, not the mailbox.
      String.raw`host or domain name not found`,
      String.raw`\bhost [\w.-]+ not found`,
      String.raw`couldn'?t find (a|any) mail exchanger`,
      String.raw`illegal host/domain name`,
    ),
    examples: [
      { reply: '550 Host unknown', source: 'hippich/PHPMailer-BMH phpmailer-bmh_rules.php (rule_cat dns_unknown)' },
      { reply: '551 5.7.1 Domain not found (#id-5.9.2)', source: 'ImprovMX (ActiveCampaign smtp-field-manual data/codes/551.json)' },
      {
        reply: '554 5.7.1 <example@example.com>: Recipient address rejected: NO-DOMAIN.',
        source: 'Trend Micro (ActiveCampaign smtp-field-manual data/codes/554.json)',
      },
      {
        reply: '550 Host or domain name not found. Name service error for name=example.jp type=A: Host not found',
        source: 'AOL (sisimai rhost-aol-01, its Diagnostic-Code)',
      },
      { reply: '550 DNS lookup failure: host cx.libsisimai.org not found', source: 'DragonFly Mail Agent (sisimai lhost-dragonfly-04)' },
      { reply: "550 Sorry, I couldn't find a mail exchanger or IP address. (#5.4.4)", source: 'qmail (sisimai lhost-qmail-12)' },
      { reply: '550 5.4.4 Illegal host/domain name found', source: 'Oracle Communications Messaging Server (sisimai lhost-messagingserver-05)' },
    ],
  },
  {
    // RFC 7505's null MX: the domain says it takes no mail, so it is final whatever status a bounce wrote beside it.
    kind: 'no-such-domain',
    text: /\bnull mx\b/i,
    examples: [
      {
        reply:
          "451 4.0.0 DNS Error: 80458680 DNS type 'mx' lookup of libsisimai.org responded with code NOERROR The domain libsisimai.org doesn't receive email according to the administrator: returned Null MX https://www.rfc-editor.org/info/rfc7505",
        source: 'Gmail (sisimai rhost-gsuite-03)',
      },
    ],
  },
  {
    kind: 'blocked',
    text: phrases(
      String.raw`spamhaus`,
      String.raw`spamcop`,
      String.raw`barracuda`,
      String.raw`sorbs`,
      String.raw`abusix`,
      String.raw`blocked`,
      String.raw`block ?list`,
      String.raw`black ?list`,
      String.raw`deny ?list`,
      String.raw`client host rejected`,
      String.raw`reverse (dns|hostname|lookup)`,
      String.raw`\brdns\b`,
      String.raw`\bptr\b`,
      String.raw`not authori[sz]ed to send`,
      String.raw`banned sending ip`,
      String.raw`reputation`,
      String.raw`listed (on|in|at)\b`,
      String.raw`\b(your|sending|invalid) ip\b`,
      String.raw`ip address`,
      String.raw`\bspam`,
      String.raw`\brbl\b`,
      String.raw`\(BL\)`,
      String.raw`name lookup failed`,
      String.raw`resource record`,
      String.raw`bloqu`,
      String.raw`\b(messages|mail|connections?) (\w+ ){0,3}from (ip )?\[?\d{1,3}(\.\d{1,3}){3}`,
    ),
    examples: [
      { reply: '554 5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org', source: 'Postfix (reject_rbl_client)' },
      { reply: '450 4.7.1 Client host rejected: cannot find your reverse hostname, [192.0.2.1]', source: 'Postfix (reject_unknown_reverse_client_hostname)' },
      { reply: '550 5.7.1 Client host rejected: cannot find your hostname, [192.0.2.1]', source: 'Postfix (reject_unknown_client_hostname)' },
      {
        reply: "550 5.7.1 [192.0.2.1] The IP you're using to send mail is not authorized to send email directly to our servers.",
        source: 'Gmail (support.google.com/a/answer/3726730)',
      },
      {
        reply:
          '550 5.7.606 Access denied, banned sending IP [192.0.2.225]. To request removal from this list please visit https://sender.office.com and follow the directions.',
        source: 'Microsoft (sisimai lhost-qmail-09)',
      },
      { reply: '553 http://www.spamhaus.org/query/bl?ip=192.0.2.222', source: 'GoDaddy (sisimai rhost-godaddy-02)' },
      {
        reply:
          '421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1; see https://postmaster.yahooinc.com/error-codes',
        source: 'Yahoo (sisimai lhost-opensmtpd-13)',
      },
    ],
  },
  {
    kind: 'server-error',
    text: phrases(
      String.raw`internal (system |server )?(error|resources?)`,
      String.raw`system (config(uration)? )?error`,
      String.raw`temporary (system|server) error`,
      String.raw`(service|system) (is )?(currently |temporarily )?(unavailable|not available)`,
      String.raw`unknown error`,
      String.raw`server (is )?busy`,
      String.raw`license expired`,
      String.raw`resources? (are )?temporarily unavailable`,
      String.raw`insufficient system resources`,
      String.raw`(requested )?(mail )?action aborted`,
      String.raw`local error`,
      String.raw`transaction failed`,
      // RFC 5321's 501 text: our command, as the server read it, not the mailbox.
      String.raw`syntax error in parameters`,
    ),
    examples: [
      { reply: '550 5.3.5 <kuroneko@example.org>... Internal System Error', source: 'Amazon WorkMail (sisimai lhost-amazonworkmail-03)' },
      { reply: '553 5.3.5 system config error', source: 'Yahoo (sisimai rhost-yahooinc-03)' },
      { reply: '554 Service currently unavailable', source: 'SurfControl (sisimai lhost-surfcontrol-02)' },
      { reply: '551 5.3.0 Unknown error', source: 'Yandex (ActiveCampaign smtp-field-manual data/codes/551.json)' },
      { reply: '554 Transaction failed', source: 'RFC 5321 §4.2.2 text' },
    ],
  },
  {
    kind: 'policy',
    text: phrases(
      String.raw`polic(y|ies)`,
      String.raw`recipient preferences`,
      String.raw`not authori[sz]ed`,
      String.raw`administrative prohibition`,
      String.raw`refused to receive`,
      // Refused with a reason given ("due to recipient preferences", "to receive this mail"): a rule's doing.
      String.raw`\brefused (to|due to)\b`,
      // The message refused, not the address: content, size or filtering rules.
      String.raw`\b(mail|message|e-?mail) (was |is )?(rejected|refused|not accepted|rejete)`,
      String.raw`message (length|size)`,
      String.raw`\b(message|mail|e-?mail)\b[^.;]{0,30}\btoo (large|big)\b`,
      String.raw`filtered`,
      String.raw`\b(no |insufficient )?permi(t|ssion)\b`,
      String.raw`spoof`,
    ),
    examples: [
      {
        reply: '550 5.1.1 RCP-P2 http://postmaster.facebook.com/response_codes?ip=192.0.2.135#rcp Refused due to recipient preferences',
        source: 'Facebook (sisimai lhost-facebook-03)',
      },
      { reply: '550 Denied by policy', source: 'sisimai lhost-postfix-42' },
      { reply: '550 5.2.0 Mail rejete. Mail rejected. ofr_506 [506]', source: 'Orange (ActiveCampaign smtp-field-manual data/codes/550.json)' },
      { reply: '552 5.2.3 Message length exceeds limit set by recipient', source: 'sisimai lhost-receivingses-08' },
      {
        reply: '550 5.2.3 RESOLVER.RST.RecipSizeLimit; message too large for this recipient',
        source: 'Exchange Server (learn.microsoft.com "Email non-delivery reports in Exchange Server"; sisimai lhost-exchange2007)',
      },
      { reply: '550 5.2.0 Message Filtered', source: 'sisimai lhost-receivingses-07' },
      { reply: '550 5.0.0 <kijitora@example.or.jp>... Insufficient permission', source: 'sisimai lhost-sendmail-13' },
    ],
  },
  {
    // Words about us that no row above read: our network, our connections, our address quoted.
    kind: 'blocked',
    code: PERMANENT,
    text: phrases(String.raw`\bnetwork\b`, String.raw`\bconnections?\b`, String.raw`(?<![=\d.])\b\d{1,3}(\.\d{1,3}){3}\b`),
    examples: [
      {
        reply: '554 Host network not allowed - https://community.mimecast.com/docs/DOC-1369#554 [z7qZw5BPd1zlDYHka4589ru.us222]',
        source: 'Mimecast (sisimai rhost-mimecast-01)',
      },
      { reply: '550 domain [example.com] mismatches client ip 192.0.2.225.', source: 'Outlook.com (sisimai lib/Sisimai/Rhost/Microsoft.pm)' },
    ],
  },
  {
    // A limit reached, per hour or per session: how much mail, never whether the mailbox exists.
    kind: 'rate-limited',
    code: PERMANENT,
    text: /\blimit(ed|s)?\b|\bper (hour|day|minute|session)\b/i,
    examples: [
      {
        reply: '554 5.2.122 The recipient has exceeded their limit for the number of messages they can receive per hour.',
        source: 'Microsoft 365 (ActiveCampaign smtp-field-manual data/codes/554.json)',
      },
    ],
  },
  {
    // Whatever else it says, a refusal that speaks of the sender speaks of us, not of the mailbox.
    kind: 'sender-rejected',
    code: PERMANENT,
    text: /\bsender\b/i,
    examples: [
      { reply: '501 xxxxx@yourdomain.com Sender email is not in my domain', source: 'hippich/PHPMailer-BMH phpmailer-bmh_rules.php (rule_cat user_reject)' },
    ],
  },
  {
    // A domain's own mail host speaking of relaying at all is refusing to take the domain.
    kind: 'relay-denied',
    code: PERMANENT,
    text: /\brelay(ing)?\b(?!=| recipient)/i,
    examples: [
      {
        reply: '550 5.7.0 <norelaying@libsisimai.net>: Recipient address rejected: No relaying. See https://libsisimai.org/en/reason/#norelaying',
        source: 'DragonFly (sisimai lhost-dragonfly-15)',
      },
    ],
  },
  {
    // RFC 5321 §4.2.2 "bad sequence of commands": our session went wrong (a MAIL FROM not taken, AUTH wanted), not the mailbox.
    kind: 'server-error',
    code: /^503$/,
    examples: [
      { reply: '503 Improper sequence of commands', source: 'sisimai set-of-emails rfc3464-29' },
      { reply: '503 5.5.1 Error: need MAIL command', source: 'Postfix (smtpd.c)' },
    ],
  },
  {
    // A 5.7.x that says the recipient address itself is refused, for no cause a row above reads
    // (Postfix's check_recipient_access prefix, which gateways keep): the address is not taken.
    // Also one that calls the address invalid: the postmaster control tells that apart from a
    // refusal about us. Not when it names a cause: a block, "not authorized", "temporarily", a
    // restriction to some senders ("members only"), the mailbox's room or the message's size.
    kind: 'unreadable-refusal',
    code: PERMANENT,
    enhanced: /^5\.7\.\d+$/,
    text: /recipient address rejected ?: (?!access denied)(?!.*?(block|\bonly\b|authori[sz]|temporar|quota|storage|exceed|too large))|\baddress\b[^.;]{0,20}\b(invalid|not valid)\b/i,
    examples: [
      {
        reply: '554 5.7.1 <email@example.com>: Recipient address rejected: Not in recipient list',
        source: 'ZeroSpam (ActiveCampaign smtp-field-manual data/codes/554.json)',
      },
      {
        reply: '550 5.7.1 <email@example.com>: Recipient address rejected: User email address is marked as invalid.',
        source: 'Proofpoint (ActiveCampaign smtp-field-manual data/codes/550.json)',
      },
      { reply: '550 5.7.0 address invalid', source: 'issue 35 (a real reply the table had not seen)' },
    ],
  },
  {
    // Any other 5.7.x is a security or policy refusal, never proof about the mailbox.
    kind: 'policy',
    code: PERMANENT,
    enhanced: /^5\.7\.\d+$/,
    examples: [
      { reply: '554 5.7.1 <kijitora@example.ch>: Recipient address rejected: Access denied', source: 'Postfix access(5) REJECT (sisimai lhost-exim-30)' },
    ],
  },
  {
    // RFC 5321 §4.2.2: 552 is "exceeded storage allocation", whatever language the words are in, under 5.1.1 too.
    kind: 'mailbox-full',
    code: /^552$/,
    examples: [
      { reply: '552 Too much mail data recipient-mailbox-is-full@docomo.ne.jp', source: 'NTT docomo (sisimai set-of-emails maildir/err/make-test-03)' },
    ],
  },
  {
    // RFC 3463 X.1.x: the address itself is bad (5.1.1 bad mailbox, 5.1.10 null MX/not found, ...).
    kind: 'no-such-mailbox',
    code: PERMANENT,
    enhanced: /^5\.1\.\d+$/,
    examples: [
      { reply: '550 5.1.1 http://support.google.com/mail/bin/answer.py?answer=6596 ad1si1997204pbd.83 - gsmtp', source: 'Gmail (sisimai lhost-opensmtpd-01)' },
      { reply: '550 5.1.1 RCP-P1 http://postmaster.facebook.com/response_codes?ip=192.0.2.54#rcp exist', source: 'Facebook (sisimai lhost-facebook-04)' },
      { reply: '550 5.1.1 sid=i01K1n00l0kn1Em01 Address rejected foobar@foobar.com. [code=28]', source: 'Comcast (sisimai t/200-reason.t)' },
    ],
  },
  {
    kind: 'temporary',
    code: TRANSIENT,
    examples: [
      { reply: '451 Temporary local problem - please try later', source: 'Exim (smtp_in.c)' },
      { reply: '451 4.3.0 Temporary lookup failure', source: 'Postfix' },
      { reply: '452 4.3.1 Insufficient system storage', source: 'Postfix' },
    ],
  },
  {
    // A 5xx that asks to try again later says it is not final.
    kind: 'temporary',
    code: PERMANENT,
    text: /try (again )?later|plus tard|sp[äa]ter|m[aá]s tarde|pi[uù] tardi/i,
    examples: [{ reply: '550 mwinf5c10 ME Service refuse. Veuillez essayer plus tard.', source: 'Orange (sisimai lib/Sisimai/Rhost/FrancePTT.pm)' }],
  },
  {
    // Room or size words no row above read (exhausted, exceeded, "full" in other words): the
    // mailbox is there, so never `invalid`.
    kind: 'mailbox-full',
    code: PERMANENT,
    text: phrases(String.raw`exhaust`, String.raw`exceeded`, String.raw`\bfull\b`, String.raw`size ?limit`),
    examples: [{ reply: '550 disk full', source: 'MailPress bounce handling II (its mailbox-full bodies)' }],
  },
  {
    // What such a refusal means most often: the address is not served there (see the kind's note).
    kind: 'unreadable-refusal',
    code: PERMANENT,
    examples: [
      // sisimai classifies it "userunknown" (t/734-lhost-messagelabs.t).
      { reply: '542 kijitora@example.com Rejected', source: 'MessageLabs (sisimai lhost-messagelabs-03)' },
      { reply: '550 5.2.0 <example@comcast.net> - Recipient unavailable', source: 'Comcast (ActiveCampaign smtp-field-manual data/codes/550.json)' },
      {
        reply: '501 Bad address syntax. http://service.exmail.qq.com/cgi-bin/help?subtype=1&&id=20022&&no=1000730',
        source: 'Tencent QQ Mail (ActiveCampaign smtp-field-manual data/codes/501.json)',
      },
    ],
  },
];
