// Many messages at once: an mbox (streamed message by message) and a Maildir folder (cur/ and new/).
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readEvidencePath } from '../../../src/engine/evidence/read.js';
import { collect, evidenceFixture, readFixture, readText } from '../../support/evidence.js';
import { testTempDir } from '../../support/temp-dirs.js';

describe('mbox and Maildir', () => {
  it('reads each message of an mbox and names the one that is no bounce', async () => {
    const { events, skips } = await readFixture('mail.mbox');
    expect(events.map((event) => [event.email, event.kind, event.status])).toEqual([
      ['No.Such@example.com', 'bounce', '5.1.1'],
      ['full@example.net', 'bounce', '5.2.2'],
      ['left@example.com', 'bounce', '5.2.1'],
    ]);
    expect(skips).toEqual([{ file: evidenceFixture('mail.mbox'), where: 'message 2', why: 'not a bounce or delivery report' }]);
  });

  it("dates a message without a Date header by its mbox 'From ' line", async () => {
    const { events } = await readFixture('mail.mbox');
    expect(events[2]!.at).toBe('2026-11-20T11:45:00.000Z');
  });

  it('reads cur/ and new/ of a Maildir, never tmp/ (messages still being written)', async () => {
    const { events, skips } = await readFixture('maildir');
    expect(skips).toEqual([]);
    expect(events.map((event) => [event.email, event.kind])).toEqual([
      ['slow@example.net', 'deferral'],
      ['ghost@example.com', 'bounce'],
    ]);
  });

  it('reads a folder of mixed files, each by its content, whatever its name', async () => {
    const dir = testTempDir('evidence-mixed');
    writeFileSync(join(dir, 'a.txt'), 'email,event,at\nx@example.com,delivered,2026-11-20T00:00:00Z\n');
    writeFileSync(join(dir, 'b.csv'), '{"notificationType":"Delivery","delivery":{"timestamp":"2026-11-20T00:00:00Z","recipients":["y@example.com"]}}\n');
    writeFileSync(join(dir, 'c.json'), '');
    const { events, skips } = await collect(readEvidencePath(dir));
    expect(events.map((event) => [event.email, event.source])).toEqual([
      ['x@example.com', 'csv'],
      ['y@example.com', 'ses'],
    ]);
    expect(skips).toEqual([{ file: join(dir, 'c.json'), where: 'file', why: 'empty' }]);
  });
});

describe('streams named by their Content-Type', () => {
  it('reads an upload the API marks as mbox, and names one holding no message', async () => {
    const mbox = readFileSync(evidenceFixture('mail.mbox'));
    const read = await readText('upload', mbox, { contentType: 'application/mbox' });
    expect(read.events).toHaveLength(3);
    const empty = await readText('upload', 'Subject: no separator\n\nhello\n', { contentType: 'application/mbox' });
    expect(empty).toEqual({ events: [], skips: [{ file: 'upload', where: 'file', why: 'an mbox without a "From " line starting a message' }] });
  });

  it("reads a message sent with its mbox 'From ' line as that one message", async () => {
    const raw = `From MAILER-DAEMON Fri Nov 20 11:00:00 2026\n${readFileSync(evidenceFixture('qmail-base64.eml'), 'latin1')}`;
    const { events } = await readText('upload', Buffer.from(raw, 'latin1'), { contentType: 'message/rfc822; charset=utf-8' });
    expect(events.map((event) => event.email)).toEqual(['ghost@example.com']);
  });
});
