// Verdicts by meaning (issue 11): an MX on loopback answers RCPT with real replies of real
// providers and MTAs, and the engine's verdict and reason follow what each reply says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier, type Verifier } from '../../src/engine/index.js';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';
import { fixtureOptions, mxZones } from '../support/engine-fixtures.js';

const MX_HOST = '127.0.11.1';
const DOMAIN = 'replies.test';

/** local part → [the real reply it gets, the verdict, the words the reason starts with] */
const CASES: Record<string, [string, string, string]> = {
  rate: [
    '550 5.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered. For more information, please visit https://support.google.com/mail/?p=ReceivingRate',
    'unknown',
    "rate-limited by the recipient's server",
  ],
  full: ['552 5.1.1 Boite du destinataire pleine.', 'unknown', 'mailbox full'],
  sender: ['550 5.1.0 <probe@mailverify.test> sender rejected. Refer to Error Codes section at https://www.cox.com/residential/support/email-error-codes.html for more information. AUP#CDRBL', 'unknown', 'our sender address was rejected'],
  preferences: ['550 5.1.1 RCP-P2 http://postmaster.facebook.com/response_codes?ip=192.0.2.135#rcp Refused due to recipient preferences', 'unknown', "refused by the recipient's policy"],
  unknown57: ['550 5.7.1 550 User Unknown: unknown57@replies.test', 'invalid', 'mailbox does not exist'],
  discontinued: ['554 delivery error: dd Sorry your message to discontinued@replies.test cannot be delivered. This account has been disabled or discontinued [#102]. - mta1.mail.example.com', 'invalid', 'mailbox disabled'],
  notours: ['551 not our user', 'invalid', 'mailbox does not exist'],
  disabled: ['525 5.7.13 <disabled@replies.test>: Recipient address rejected: Disabled recipient address', 'invalid', 'mailbox disabled'],
  hash: ['550 #5.1.0 Address rejected.', 'invalid', 'mailbox does not exist'],
  blocked: ['550 5.5.0 Le compte du destinataire est bloque. The recipient account is blocked. LPN007_426', 'invalid', 'mailbox disabled'],
  expansion: ['524 5.2.4 Mailing list expansion problem: <expansion@replies.test>', 'invalid', 'mailbox does not exist'],
  relay: ['550 relay not permitted', 'invalid', 'relay refused for this domain'],
  notexist: ['550 <notexist@replies.test>... User not exist', 'invalid', 'mailbox does not exist'],
  vrfy: ['252 Cannot VRFY user, but will accept message and attempt delivery', 'unknown', 'the server takes mail without verifying the address'],
  local: ['451 Temporary local problem - please try later', 'unknown', "temporary failure at the recipient's server"],
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
  it.each(Object.entries(CASES))('%s@replies.test: %s', async (local, [reply, verdict, words]) => {
    const result = await verifier.verify(`${local}@${DOMAIN}`);
    expect(result.result).toBe(verdict);
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
