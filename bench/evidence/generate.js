/**
 * An mbox of `count` bounces of the kinds a sender's mailbox holds: RFC 3464 reports (user unknown,
 * mailbox full, delay warnings, delivery reports) and plain-text bounces (qmail, Exim), each to an
 * address of its own, written as a stream.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

const DSN = (n, recipient, action, status, diagnostic) => `From MAILER-DAEMON Fri Nov 20 11:00:00 2026
Return-Path: <>
Date: Fri, 20 Nov 2026 12:00:00 +0000
From: Mail Delivery System <MAILER-DAEMON@mx.ours.example>
To: sender@ours.example
Subject: Undelivered Mail Returned to Sender
Message-Id: <bounce-${n}@mx.ours.example>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="B${n}"

--B${n}
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.ours.example.

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients.

<${recipient}>: host mx.example.com[192.0.2.10] said: ${diagnostic}
    (in reply to RCPT TO command)

--B${n}
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.ours.example
Arrival-Date: Fri, 20 Nov 2026 11:59:58 +0000

Final-Recipient: rfc822; ${recipient}
Original-Recipient: rfc822;${recipient}
Action: ${action}
Status: ${status}
Remote-MTA: dns; mx.example.com
Diagnostic-Code: smtp; ${diagnostic}

--B${n}
Content-Type: text/rfc822-headers

From: sender@ours.example
To: ${recipient}
Subject: Newsletter ${n}
Message-Id: <sent-${n}@ours.example>

--B${n}--

`;

const QMAIL = (n, recipient) => `From MAILER-DAEMON Fri Nov 20 11:00:00 2026
Date: Fri, 20 Nov 2026 12:00:00 +0000
From: MAILER-DAEMON@mail.ours.example
To: sender@ours.example
Subject: failure notice

Hi. This is the qmail-send program at mail.ours.example.
I'm afraid I wasn't able to deliver your message to the following addresses.
This is a permanent error; I've given up. Sorry it didn't work out.

<${recipient}>:
192.0.2.10 does not like recipient.
Remote host said: 550 5.1.1 <${recipient}>: no such user here
Giving up on 192.0.2.10.

--- Below this line is a copy of the message.

From: sender@ours.example
To: ${recipient}
Subject: Newsletter ${n}

`;

const EXIM = (n, recipient) => `From MAILER-DAEMON Fri Nov 20 11:00:00 2026
Date: Fri, 20 Nov 2026 12:00:00 +0000
From: Mail Delivery System <Mailer-Daemon@mx.ours.example>
To: sender@ours.example
Subject: Mail delivery failed: returning message to sender
X-Failed-Recipients: ${recipient}

This message was created automatically by mail delivery software.

A message that you sent could not be delivered to one or more of its
recipients. This is a permanent error. The following address(es) failed:

  ${recipient}
    host mx.example.com [192.0.2.10]
    SMTP error from remote mail server after RCPT TO:<${recipient}>:
    550 5.2.1 The email account that you tried to reach is disabled.

------ This is a copy of the message, including all the headers. ------

From: sender@ours.example
To: ${recipient}
Subject: Newsletter ${n}

`;

/** The nth message of the mix. */
function message(n) {
  const recipient = `user${n}@domain${n % 997}.example`;
  switch (n % 6) {
    case 0:
      return DSN(n, recipient, 'failed', '5.1.1', '550 5.1.1 <' + recipient + '>: Recipient address rejected: User unknown');
    case 1:
      return DSN(n, recipient, 'failed', '5.2.2', '552 5.2.2 Mailbox full');
    case 2:
      return DSN(n, recipient, 'delayed', '4.4.1', '451 4.4.1 connect to mx.example.com[192.0.2.10]:25: Connection timed out');
    case 3:
      return DSN(n, recipient, 'relayed', '2.0.0', '250 2.0.0 Ok: queued as 4BC1');
    case 4:
      return QMAIL(n, recipient);
    default:
      return EXIM(n, recipient);
  }
}

/** Writes the mbox; returns its size in bytes. */
export async function writeMbox(path, count) {
  const out = createWriteStream(path);
  let bytes = 0;
  for (let n = 0; n < count; n += 1) {
    const text = message(n);
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return bytes;
}
