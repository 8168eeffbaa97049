import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { localDataDir, privateLocalDataDir } from '../../src/cli/local-service/data-dir.js';
import { readRuns, recordRun } from '../../src/cli/commands/bulk/support/local-runs.js';
import { withFileLock } from '../../src/cli/files/file-lock.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailverify-local-runs-'));
  return () => rm(dir, { recursive: true, force: true });
});

describe('local run records', () => {
  it('keeps every entry when many runs record at once (read-modify-write under a lock)', async () => {
    const lists = Array.from({ length: 20 }, (_, index) => `list-${index}.csv`);
    await Promise.all(lists.map((list, index) => recordRun(dir, list, { digest: `digest-${index}`, jobId: `job-${index}` })));
    const runs = await readRuns(dir);
    expect(Object.keys(runs).sort()).toEqual([...lists].sort());
    expect(runs['list-7.csv']).toMatchObject({ digest: 'digest-7', jobId: 'job-7' });
  });

  it('keeps every entry when separate processes record at once', async () => {
    const script = `import { recordRun } from ${JSON.stringify(new URL('../../dist/cli/commands/bulk/support/local-runs.js', import.meta.url).href)};
      await Promise.all(Array.from({ length: 10 }, (_, i) => recordRun(process.argv[1], process.argv[2] + '-' + i, { digest: 'd', jobId: 'j' })));`;
    const run = (name: string) =>
      new Promise<number | null>((resolve) =>
        spawn(process.execPath, ['--input-type=module', '-e', script, dir, name], { stdio: 'inherit' }).on('close', resolve),
      );
    expect(await Promise.all(['a', 'b', 'c'].map(run))).toEqual([0, 0, 0]);
    expect(Object.keys(await readRuns(dir))).toHaveLength(30);
  });

  it('takes over a lock left by a process that died holding it', async () => {
    const lock = join(dir, 'x.lock');
    await writeFile(lock, '12345\n');
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    expect(await withFileLock(lock, async () => 'held')).toBe('held');
    await expect(stat(lock)).rejects.toThrow();
  });
});

describe('the local data dir', () => {
  it('is the flag, else MAILVERIFY_LOCAL_DATA_DIR, else the local folder of the OS data dir; never MAILVERIFY_DATA_DIR', () => {
    const env = { XDG_DATA_HOME: '/home/ann/.local/share', MAILVERIFY_DATA_DIR: '/srv/mailverify' };
    expect(localDataDir(undefined, env)).toBe('/home/ann/.local/share/mailverify/local');
    expect(localDataDir(undefined, { ...env, MAILVERIFY_LOCAL_DATA_DIR: '/tmp/mine' })).toBe('/tmp/mine');
    expect(localDataDir('/given', { ...env, MAILVERIFY_LOCAL_DATA_DIR: '/tmp/mine' })).toBe('/given');
  });

  it('is made private when others can open it', async () => {
    const shared = join(dir, 'shared');
    await mkdir(shared);
    await chmod(shared, 0o755);
    const notices: string[] = [];
    expect(await privateLocalDataDir(shared, {}, (message) => notices.push(message))).toBe(shared);
    expect((await stat(shared)).mode & 0o777).toBe(0o700);
    expect(notices).toEqual([expect.stringContaining('made')]);
    // Already private: nothing said.
    await privateLocalDataDir(shared, {}, (message) => notices.push(message));
    expect(notices).toHaveLength(1);
  });
});
