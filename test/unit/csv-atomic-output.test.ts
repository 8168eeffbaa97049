import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileAtomic, writeTextAtomic } from '../../src/cli/files/atomic-write.js';

/** Result files are written through writeFileAtomic: whole or not at all. */
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailverify-atomic-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('replaces the file whole, keeping its mode, and leaves no temp file', async () => {
    const path = join(dir, 'out.csv');
    await writeTextAtomic(path, 'old\n', { mode: 0o600 });
    await writeFileAtomic(path, async (out) => {
      out.write('new ');
      out.end('content\n');
    });
    expect(await readFile(path, 'utf8')).toBe('new content\n');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['out.csv']);
  });

  it('leaves the old file and removes the temp file when the writer fails half-way', async () => {
    const path = join(dir, 'kept.csv');
    await writeFile(path, 'old\n');
    const failing = writeFileAtomic(path, async (out) => {
      out.write('half a fi');
      throw new Error('the service went away');
    });
    await expect(failing).rejects.toThrow('the service went away');
    expect(await readFile(path, 'utf8')).toBe('old\n');
    expect((await readdir(dir)).filter((name) => name.startsWith('.kept.csv'))).toEqual([]);
  });

  it('on SIGINT while writing, stops with exit code 130 and leaves no file behind', async () => {
    const path = join(dir, 'never.csv');
    const writing = writeFileAtomic(path, async (out) => {
      out.write('some rows\n');
      process.emit('SIGINT', 'SIGINT');
      await new Promise((resolve) => out.once('close', resolve));
    });
    await expect(writing).rejects.toMatchObject({ exitCode: 130, message: expect.stringContaining('SIGINT while writing') });
    expect((await readdir(dir)).filter((name) => name.includes('never.csv'))).toEqual([]);
  });
});
