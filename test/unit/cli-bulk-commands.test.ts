import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/client/errors.js';
import * as deleteCommand from '../../src/cli/commands/bulk/delete.js';
import * as list from '../../src/cli/commands/bulk/list.js';
import * as localPrune from '../../src/cli/commands/bulk/local-prune.js';
import * as results from '../../src/cli/commands/bulk/results.js';
import * as status from '../../src/cli/commands/bulk/status.js';
import * as submit from '../../src/cli/commands/bulk/submit.js';
import { LOCAL_ACCOUNT } from '../../src/cli/local-service/local-account.js';
import { UsageError } from '../../src/cli/output/errors.js';
import { openStore } from '../../src/server/store/open/open-store.js';
import { memoryIo, parseCommandLine } from '../support/cli-parse.js';
import { missingAddresses, serviceForFile, type LoggedIn } from '../support/command-service.js';
import { testTempDir } from '../support/temp-dirs.js';

/** `bulk status|results|list|delete` against the real service, and `bulk local prune` on a local data dir a local run filled. */

const fixture = serviceForFile('ann@example.com');

/** A job of `count` addresses that do not exist, completed (watched to its end by `bulk status --watch`). */
async function completedJob(user: LoggedIn, count: number): Promise<{ jobId: string; printed: string }> {
  const jobId = await fixture.service.submit(user.token, missingAddresses(count));
  const { io, stdout } = memoryIo(user.env);
  await status.run(status.parse(parseCommandLine(['bulk', 'status', jobId, '--watch', '--wait-timeout', '30s'])), io);
  return { jobId, printed: stdout() };
}

describe('bulk: parse', () => {
  it('reads the jobs named, --watch with its --wait-timeout, --limit, --older-than', () => {
    expect(status.parse(parseCommandLine(['bulk', 'status', 'j1', 'j2']))).toMatchObject({ jobIds: ['j1', 'j2'], watch: undefined });
    expect(status.parse(parseCommandLine(['bulk', 'status', 'j1', '--watch', '--wait-timeout', '90s'])).watch).toEqual({ waitTimeout: '90s' });
    expect(deleteCommand.parse(parseCommandLine(['--profile', 'ci', 'bulk', 'delete', 'j1', 'j2']))).toEqual({
      program: { baseUrl: undefined, profile: 'ci', timeout: undefined, debug: false },
      jobIds: ['j1', 'j2'],
    });
    expect(list.parse(parseCommandLine(['bulk', 'list'])).limit).toBe(20);
    expect(list.parse(parseCommandLine(['bulk', 'list', '--limit', '250'])).limit).toBe(250);
    expect(localPrune.parse(parseCommandLine(['bulk', 'local', 'prune']))).toMatchObject({
      olderThan: { raw: '30d', ms: 30 * 86_400_000 },
      dataDir: undefined,
    });
    expect(localPrune.parse(parseCommandLine(['bulk', 'local', 'prune', '--older-than', '12h', '--data-dir', '/tmp/d']))).toMatchObject({
      olderThan: { raw: '12h', ms: 12 * 3_600_000 },
      dataDir: '/tmp/d',
    });
  });

  it.each([
    [() => list.parse(parseCommandLine(['bulk', 'list', '--limit', '0'])), '--limit must be a whole number above 0, got "0"'],
    [() => list.parse(parseCommandLine(['bulk', 'list', '--limit', '2.5'])), '--limit must be a whole number above 0, got "2.5"'],
    [() => localPrune.parse(parseCommandLine(['bulk', 'local', 'prune', '--older-than', 'soon'])), '--older-than: "soon" is no duration'],
  ])('refuses %# (exit 2)', (parse, message) => {
    expect(parse).toThrow(UsageError);
    expect(parse).toThrow(message);
  });

  it('results: refuses a format it does not write (exit 2)', async () => {
    await expect(results.parse(parseCommandLine(['bulk', 'results', 'j1', '--format', 'xml']))).rejects.toThrow('--format takes csv, json, ndjson; got "xml"');
  });
});

describe('bulk: run', () => {
  it('status watches a job to its end, then says where it stands', async () => {
    const { jobId, printed } = await completedJob(fixture.login, 3);
    // In a log, a line as the watch starts (and every 10 s) while the job runs, then the end.
    const lines = printed.trimEnd().split('\n');
    expect(lines.at(-1)).toBe(`job ${jobId}: completed, 3/3 (100%)`);
    for (const line of lines) expect(line).toMatch(new RegExp(`^job ${jobId}: (queued|processing|completed), \\d/3 \\(\\d+%\\)$`));
    const { io, stdout } = memoryIo(fixture.login.env, { json: true });
    await status.run(status.parse(parseCommandLine(['bulk', 'status', jobId])), io);
    expect(JSON.parse(stdout())).toMatchObject({ job_id: jobId, status: 'completed', processed: 3, total: 3, progress_percent: 100 });
  });

  it('status refuses a --wait-timeout of nothing once it watches (exit 2)', async () => {
    const jobId = await fixture.service.submit(fixture.login.token, missingAddresses(1));
    const watch = status.run(status.parse(parseCommandLine(['bulk', 'status', jobId, '--watch', '--wait-timeout', '0'])), memoryIo(fixture.login.env).io);
    await expect(watch).rejects.toThrow('--wait-timeout must be more than 0, got "0"');
  });

  it('results writes every verdict of a completed job', async () => {
    const { jobId } = await completedJob(fixture.login, 2);
    const { io, stdout } = memoryIo(fixture.login.env);
    await results.run(await results.parse(parseCommandLine(['bulk', 'results', jobId])), io);
    const rows = stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { email: string; result: string });
    expect(rows.map(({ email, result }) => [email, result]).sort()).toEqual(missingAddresses(2).map((email) => [email, 'invalid']));
  });

  it('list shows the newest jobs first, as many as --limit', async () => {
    const bob = await fixture.service.loggedIn('bob@example.com');
    const first = await completedJob(bob, 1);
    const second = await completedJob(bob, 2);
    const { io, stdout } = memoryIo(bob.env);
    await list.run(list.parse(parseCommandLine(['bulk', 'list', '--limit', '1'])), io);
    expect(stdout()).toMatch(new RegExp(`^${second.jobId}  -  completed  2/2  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\n$`));
    const json = memoryIo(bob.env, { json: true });
    await list.run(list.parse(parseCommandLine(['bulk', 'list'])), json.io);
    expect((JSON.parse(json.stdout()) as { job_id: string }[]).map((job) => job.job_id)).toEqual([second.jobId, first.jobId]);
  });

  it('delete removes the jobs named, and a job that is not there stops it (exit 7)', async () => {
    const carl = await fixture.service.loggedIn('carl@example.com');
    const [one, two] = [await completedJob(carl, 1), await completedJob(carl, 1)];
    const { io, stderr } = memoryIo(carl.env);
    await deleteCommand.run(deleteCommand.parse(parseCommandLine(['bulk', 'delete', one.jobId, two.jobId])), io);
    expect(stderr()).toBe(`job ${one.jobId} deleted\njob ${two.jobId} deleted\n`);
    expect(await fixture.service.app.store.jobs.listJobs(carl.user.id, 10)).toEqual([]);
    const again = deleteCommand.run(deleteCommand.parse(parseCommandLine(['bulk', 'delete', one.jobId])), memoryIo(carl.env).io);
    await expect(again).rejects.toThrow(NotFoundError);
    const gone = status.run(status.parse(parseCommandLine(['bulk', 'status', two.jobId])), memoryIo(carl.env).io);
    await expect(gone).rejects.toThrow(NotFoundError);
  });
});

describe('bulk local prune: run', () => {
  it('deletes the local jobs older than --older-than and forgets their lists; a data dir never used stays unmade', async () => {
    const dir = testTempDir('bulk-prune');
    const dataDir = join(dir, 'data');
    const listPath = join(dir, 'list.txt');
    await writeFile(listPath, `${missingAddresses(2).join('\n')}\n`);
    const submitted = memoryIo({ MAILVERIFY_CONFIG_DIR: join(dir, 'config') });
    const local = ['--local', '--data-dir', dataDir, ...fixture.service.world.engineArgs];
    await submit.run(await submit.parse(parseCommandLine(['bulk', 'submit', listPath, ...local, '--output', join(dir, 'out.csv')])), submitted.io);
    const runs = async () => Object.keys(JSON.parse(await readFile(join(dataDir, 'local-runs.json'), 'utf8')) as object);
    expect(await runs()).toEqual([listPath]);

    const young = memoryIo({}, { json: true });
    await localPrune.run(localPrune.parse(parseCommandLine(['bulk', 'local', 'prune', '--older-than', '1h', '--data-dir', dataDir])), young.io);
    expect(JSON.parse(young.stdout())).toEqual({ deleted: 0, olderThan: '1h', dataDir });
    expect(await runs()).toEqual([listPath]);

    const all = memoryIo({});
    await localPrune.run(localPrune.parse(parseCommandLine(['bulk', 'local', 'prune', '--older-than', '0s', '--data-dir', dataDir])), all.io);
    expect(all.stderr()).toBe(`deleted 1 local job made more than 0s ago, with their addresses and results, from ${dataDir}\n`);
    expect(await runs()).toEqual([]);
    const store = await openStore({ dataDir });
    try {
      const account = await store.accounts.findUserByEmail(LOCAL_ACCOUNT);
      expect(await store.jobs.listJobs(account!.id, 10)).toEqual([]);
    } finally {
      await store.close();
    }

    const never = join(dir, 'never');
    const none = memoryIo({});
    await localPrune.run(localPrune.parse(parseCommandLine(['bulk', 'local', 'prune', '--data-dir', never])), none.io);
    expect(none.stderr()).toBe(`deleted 0 local jobs made more than 30d ago, with their addresses and results, from ${never}\n`);
    await expect(readFile(join(never, 'local-runs.json'))).rejects.toThrow(/ENOENT/);
  });
});
