import { describe, expect, it } from 'vitest';
import * as deleteCommand from '../../src/cli/commands/evidence/delete.js';
import * as importCommand from '../../src/cli/commands/evidence/import.js';
import * as listCommand from '../../src/cli/commands/evidence/list.js';
import { addressLines } from '../../src/cli/commands/evidence/list.js';
import type { EvidenceEventInfo } from '../../src/wire/evidence.js';
import { memoryIo, parseCommandLine } from '../support/cli-parse.js';
import { evidenceFixture } from '../support/evidence.js';
import { testTempDir } from '../support/temp-dirs.js';

// `evidence import|list|delete`: their command lines as options, and their work against the local
// data dir's real store (the service's side is the e2e test's, test/e2e/evidence.test.ts).

const event = (email: string, kind: EvidenceEventInfo['kind'], at: string, meaning: EvidenceEventInfo['meaning']): EvidenceEventInfo => ({
  email,
  kind,
  at,
  source: 'test',
  meaning,
});

describe('evidence command lines', () => {
  it('takes files with --source and --local, and --data-dir only with --local', () => {
    expect(importCommand.parse(parseCommandLine(['evidence', 'import', 'a.eml', 'logs/', '--source', ' news ', '--local']))).toMatchObject({
      paths: ['a.eml', 'logs/'],
      source: 'news',
      local: true,
    });
    expect(() => importCommand.parse(parseCommandLine(['evidence', 'import', 'a.eml', '--data-dir', '/tmp/x']))).toThrow(/--data-dir needs --local/);
    expect(() => importCommand.parse(parseCommandLine(['evidence', 'import', 'a.eml', '--source', ' ']))).toThrow(/--source/);
  });

  it('deletes only what one of --email, --source or --all names', () => {
    expect(deleteCommand.parse(parseCommandLine(['evidence', 'delete', '--source', 'ses'])).selection).toEqual({ source: 'ses' });
    expect(deleteCommand.parse(parseCommandLine(['evidence', 'delete', '--all'])).selection).toEqual({});
    expect(() => deleteCommand.parse(parseCommandLine(['evidence', 'delete']))).toThrow(/one of --email/);
    expect(() => deleteCommand.parse(parseCommandLine(['evidence', 'delete', '--all', '--email', 'a@x.test']))).toThrow(/one of --email/);
  });

  it('lists each address once: the newest event that decides, else the newest', () => {
    expect(
      addressLines([
        event('b@x.test', 'bounce', '2026-11-01T00:00:00.000Z', 'missing-mailbox'),
        event('a@x.test', 'bounce', '2026-11-03T00:00:00.000Z', 'soft'),
        event('a@x.test', 'delivery', '2026-11-02T00:00:00.000Z', 'delivered'),
        event('b@x.test', 'deferral', '2026-11-04T00:00:00.000Z', 'soft'),
        event('c@x.test', 'complaint', '2026-11-04T00:00:00.000Z', 'soft'),
      ]),
    ).toEqual([
      { email: 'a@x.test', kind: 'delivery', at: '2026-11-02T00:00:00.000Z', verdict: 'valid', source: 'test' },
      { email: 'b@x.test', kind: 'bounce', at: '2026-11-01T00:00:00.000Z', verdict: 'invalid', source: 'test' },
      { email: 'c@x.test', kind: 'complaint', at: '2026-11-04T00:00:00.000Z', verdict: null, source: 'test' },
    ]);
  });
});

describe('evidence commands on the local data dir', () => {
  it('imports, lists and deletes, adding nothing twice and failing on a file with no evidence', { timeout: 30_000 }, async () => {
    const dataDir = testTempDir('evidence-local');
    const local = ['--local', '--data-dir', dataDir];
    const first = memoryIo({});
    await importCommand.run(importCommand.parse(parseCommandLine(['evidence', 'import', evidenceFixture('dsn-user-unknown.eml'), ...local])), first.io);
    expect(first.stdout()).toMatch(/dsn-user-unknown\.eml: 2 read, 2 added, 0 skipped/);
    const again = memoryIo({});
    await importCommand.run(importCommand.parse(parseCommandLine(['evidence', 'import', evidenceFixture('dsn-user-unknown.eml'), ...local])), again.io);
    expect(again.stdout()).toMatch(/2 read, 0 added/);

    const none = memoryIo({});
    await expect(
      importCommand.run(importCommand.parse(parseCommandLine(['evidence', 'import', evidenceFixture('not-evidence.txt'), ...local])), none.io),
    ).rejects.toThrow(/no evidence was read/);
    expect(none.stdout()).toMatch(/skipped .*not-evidence\.txt/);

    const listed = memoryIo({}, { json: true });
    await listCommand.run(listCommand.parse(parseCommandLine(['evidence', 'list', ...local])), listed.io);
    expect(
      listed
        .stdout()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as object),
    ).toEqual([
      { email: 'full@example.net', kind: 'bounce', at: expect.any(String), verdict: null, source: 'dsn' },
      { email: 'no.such@example.com', kind: 'bounce', at: expect.any(String), verdict: 'invalid', source: 'dsn' },
    ]);

    const deleted = memoryIo({}, { json: true });
    await deleteCommand.run(deleteCommand.parse(parseCommandLine(['evidence', 'delete', '--all', ...local])), deleted.io);
    expect(JSON.parse(deleted.stdout())).toEqual({ deleted: 2 });
  });
});
