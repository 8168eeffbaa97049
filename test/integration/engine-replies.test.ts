// Verdicts by meaning (issue 11): an MX on loopback answers RCPT with real replies of real
// providers and MTAs, and the engine's verdict and reason follow what each reply says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier, type Verifier } from '../../src/engine/index.js';
import type { ReasonCode } from '../../src/engine/core/reason-codes.js';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';
import { fixtureOptions, mxZones } from '../support/engine-fixtures.js';

const MX_HOST = '127.0.11.1';
const DOMAIN = 'replies.test';

/** local part → [the real reply it gets, the verdict, the words the reason starts with, the reason code] */
const CASES: Record<string, [string, string, string, ReasonCode]> = {
  rate: [
    '550 5.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered. For more information, please visit https://support.google.com/mail/?p=ReceivingRate',
    'unknown',
    "rate-limited by the recipient's server",
    'rate_limited',
  ],
  full: ['552 5.1.1 Boite du destinataire pleine.', 'unknown', 'mailbox full', 'mailbox_full'],
  sender: [
    '550 5.1.0 <probe@mailverify.test> sender rejected. Refer to Error Codes section at https://www.cox.com/residential/support/email-error-codes.html for more information. AUP#CDRBL',
    'unknown',
    'our sender address was rejected',
    'sender_refused',
  ],
  preferences: [
    '550 5.1.1 RCP-P2 http://postmaster.facebook.com/response_codes?ip=192.0.2.135#rcp Refused due to recipient preferences',
    'unknown',
    "refused by the recipient's policy",
    'policy_refused',
  ],
  unknown57: ['550 5.7.1 550 User Unknown: unknown57@replies.test', 'invalid', 'mailbox does not exist', 'mailbox_not_found'],
  discontinued: [
    '554 delivery error: dd Sorry your message to discontinued@replies.test cannot be delivered. This account has been disabled or discontinued [#102]. - mta1.mail.example.com',
    'invalid',
    'mailbox disabled',
    'mailbox_disabled',
  ],
  notours: ['551 not our user', 'invalid', 'mailbox does not exist', 'mailbox_not_found'],
  disabled: ['525 5.7.13 <disabled@replies.test>: Recipient address rejected: Disabled recipient address', 'invalid', 'mailbox disabled', 'mailbox_disabled'],
  hash: ['550 #5.1.0 Address rejected.', 'invalid', 'mailbox does not exist', 'mailbox_not_found'],
  blocked: ['550 5.5.0 Le compte du destinataire est bloque. The recipient account is blocked. LPN007_426', 'invalid', 'mailbox disabled', 'mailbox_disabled'],
  expansion: ['524 5.2.4 Mailing list expansion problem: <expansion@replies.test>', 'invalid', 'mailbox does not exist', 'mailbox_not_found'],
  relay: ['550 relay not permitted', 'invalid', 'relay refused for this domain', 'not_served_here'],
  notexist: ['550 <notexist@replies.test>... User not exist', 'invalid', 'mailbox does not exist', 'mailbox_not_found'],
  vrfy: [
    '252 Cannot VRFY user, but will accept message and attempt delivery',
    'unknown',
    'the server takes mail without verifying the address',
    'not_verified',
  ],
  local: ['451 Temporary local problem - please try later', 'unknown', "temporary failure at the recipient's server", 'temporary_failure'],
  // Issue 21: a permanent refusal in words no row reads is invalid; the rows naming another cause keep theirs.
  unreadable: ['542 unreadable@replies.test Rejected', 'invalid', 'refused permanently, no cause given (most often: not served there)', 'unreadable_refusal'],
  gateway: [
    '554 5.7.1 <gateway@replies.test>: Recipient address rejected: Not in recipient list',
    'invalid',
    'refused permanently, no cause given (most often: not served there)',
    'unreadable_refusal',
  ],
  hostunknown: ['550 Host unknown', 'invalid', 'the server does not know the domain', 'domain_not_found'],
  servererror: ['550 5.3.5 <servererror@replies.test>... Internal System Error', 'unknown', "error at the recipient's server", 'server_error'],
  quota: ['552 5.1.1 <quota@replies.test> recipient rejected - extended quota violation', 'unknown', 'mailbox full', 'mailbox_full'],
  clientblocked: ['554 5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org', 'unknown', 'our IP is blocked', 'ip_blocked'],
  later: [
    '550 5.5.0 Service refuse. Veuillez essayer plus tard. service refused, please try later. LPN005_510',
    'unknown',
    "temporary failure at the recipient's server",
    'temporary_failure',
  ],
};

let dns: DnsFixture;
let mx: SmtpFixture;
let verifier: Verifier;

beforeAll(async () => {
  const port = await freePort(MX_HOST);
  mx = await startSmtpServer({
    host: MX_HOST,
    port,
    replies: Object.fromEntries(Object.entries(CASES).map(([local, [reply]]) => [`${local}@${DOMAIN}`, reply])),
  });
  dns = await startDnsServer(mxZones(DOMAIN, { [`mx.${DOMAIN}`]: MX_HOST }));
  verifier = createVerifier(fixtureOptions(dns, port));
});

afterAll(async () => {
  await Promise.all([mx?.close(), dns?.close()]);
});

describe('verdicts by what the reply means', () => {
  it.each(Object.entries(CASES))('%s@replies.test: %s', async (local, [reply, verdict, words, reasonCode]) => {
    const result = await verifier.verify(`${local}@${DOMAIN}`);
    expect(result.result).toBe(verdict);
    expect(result.reasonCode).toBe(reasonCode);
    expect(result.checks.smtpStatus).toBe(verdict);
    expect(result.reason).toBe(`${words}: ${reply.replace('#5.1.0', '5.1.0')}`);
  });

  it('answers them all the same in one bulk run, asking each address once with retries off', async () => {
    mx.reset();
    const verdicts = new Map<string, string>();
    await verifier.verifyMany(
      Object.keys(CASES).map((local) => `${local}@${DOMAIN}`),
      (result) => void verdicts.set(result.email.split('@')[0]!, result.result),
    );
    expect(Object.fromEntries(verdicts)).toEqual(Object.fromEntries(Object.entries(CASES).map(([local, [, verdict]]) => [local, verdict])));
    for (const local of Object.keys(CASES)) expect(mx.rcptCount(`${local}@${DOMAIN}`), local).toBe(1);
  });
});
