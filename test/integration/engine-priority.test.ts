import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier } from '../../src/engine/index.js';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { fixtureOptions, mxZones } from '../support/engine-fixtures.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';

// The interactive lane: a single verification at a host a long bulk run keeps busy is answered
// long before the run ends, and the host's session limit holds throughout.

const HOST = '127.0.16.11';
const DOMAIN = 'shared.priority.test';
const BULK = 300;
const bulkEmails = Array.from({ length: BULK }, (_, index) => `bulk${index}@${DOMAIN}`);

let dns: DnsFixture;
let smtp: SmtpFixture;
let port: number;

beforeAll(async () => {
  port = await freePort(HOST);
  // Every bulk address exists: sessions are not cut short by refusals, so they would hold the host's slots to the end.
  smtp = await startSmtpServer({ host: HOST, port, mailboxes: [...bulkEmails, `alice@${DOMAIN}`], replyDelayMs: 5 });
  dns = await startDnsServer(mxZones(DOMAIN, { [`mx.${DOMAIN}`]: HOST }));
});

afterAll(async () => {
  await smtp?.close();
  await dns?.close();
});

describe('an interactive verification during a bulk run at the same host', () => {
  it('gets the next session slot at the host: answered before most of the run, within the per-host limit', async () => {
    const verifier = createVerifier(fixtureOptions(dns, port, { perHostConcurrency: 2 }));
    let bulkDone = 0;
    let bulkDoneAtAnswer = -1;
    const run = verifier.verifyMany(bulkEmails, () => {
      bulkDone += 1;
    });
    // Wait until the bulk run holds the host's slots and is answering.
    while (bulkDone < 20) await new Promise((resolve) => setTimeout(resolve, 5));
    const interactive = verifier.verify(`alice@${DOMAIN}`, { priority: 'interactive' }).then((result) => {
      bulkDoneAtAnswer = bulkDone;
      return result;
    });
    expect(await interactive).toMatchObject({ result: 'valid' });
    await run;
    expect(bulkDone).toBe(BULK);
    // Without the lane it would queue behind every session of the run, i.e. after all 300.
    expect(bulkDoneAtAnswer).toBeLessThan(BULK / 2);
    expect(smtp.peakSessions()).toBeLessThanOrEqual(2);
    // Bulk sessions that made room asked each of their addresses once all the same.
    expect(smtp.rcptCount()).toBe(BULK + 2);
  });
});
