// Many messages at once: an mbox (streamed message by message) and a Maildir folder (cur/ and new/).
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readEvidencePath } from '../../../src/engine/evidence/read.js';
import { collect, evidenceFixture, readFixture } from '../../support/evidence.js';
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
