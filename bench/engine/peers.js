/**
 * The npm peers, each behind one function: address → a verdict in our vocabulary (valid, invalid,
 * risky, catch_all, unknown), read as generously as each peer's output allows. None of them tells
 * catch-all domains or greylisting apart; where a peer cannot say "unknown" its failure is what
 * its users would read it as.
 */

const SENDER = 'verify@bench.mailverify.test';
const HELO_NAME = 'bench.mailverify.test';
const TIMEOUT_MS = 10_000;

/** deep-email-validator: one `valid` flag and the name of the first check that failed. */
async function deepEmailValidator() {
  const { validate } = await import('deep-email-validator');
  return async (email) => {
    const outcome = await validate({ email, sender: SENDER });
    if (outcome.valid) return 'valid';
    if (outcome.reason === 'disposable') return 'risky';
    if (outcome.reason !== 'smtp') return 'invalid';
    // Its SMTP check fails with "Mailbox not found." on a 550 and with other texts on anything else.
    return outcome.validators.smtp?.reason === 'Mailbox not found.' ? 'invalid' : 'unknown';
  };
}

/** email-verify: `success` plus a code saying how far it got. */
async function emailVerify() {
  const { default: emailVerifyModule } = await import('email-verify');
  const { verify, verifyCodes } = emailVerifyModule;
  const invalidCodes = new Set([verifyCodes.invalidEmailStructure, verifyCodes.noMxRecords, verifyCodes.domainNotFound]);
  return (email) =>
    new Promise((resolve) => {
      verify(email, { sender: SENDER, fqdn: HELO_NAME, timeout: TIMEOUT_MS }, (_error, info) => {
        if (info?.success) resolve('valid');
        // It finishes every session that got to RCPT as "not success", whatever the reply was.
        else if (info?.code === verifyCodes.finishedVerification || invalidCodes.has(info?.code)) resolve('invalid');
        else resolve('unknown');
      });
    });
}

/** @emailcheck/email-validator-js: format, MX and a three-valued `validSmtp` (null = could not tell). */
async function emailcheckValidator() {
  const { verifyEmail } = await import('@emailcheck/email-validator-js');
  return async (email) => {
    const outcome = await verifyEmail({
      emailAddress: email,
      verifyMx: true,
      verifySmtp: true,
      smtpPort: 25,
      timeout: TIMEOUT_MS,
      checkDisposable: true,
    });
    if (!outcome.validFormat || outcome.validMx === false) return 'invalid';
    if (outcome.isDisposable) return 'risky';
    if (outcome.isCatchAll) return 'catch_all';
    if (outcome.validSmtp === true) return 'valid';
    return outcome.validSmtp === false ? 'invalid' : 'unknown';
  };
}

/** Package name → loader of its verify function. */
export const PEERS = {
  'deep-email-validator': deepEmailValidator,
  'email-verify': emailVerify,
  '@emailcheck/email-validator-js': emailcheckValidator,
};
