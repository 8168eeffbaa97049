import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDirError, prepareDataDir } from '../../src/server/store/data-dir.js';
import { testTempDir } from '../support/temp-dirs.js';

describe('prepareDataDir', () => {
  it('lets several callers make the same missing directory at once (all look before any makes it)', async () => {
    const dir = join(testTempDir('data-dir'), 'data');
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => prepareDataDir(dir, { createParents: false })));
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    expect((await stat(dir)).isDirectory()).toBe(true);
  });

  it('still refuses a missing parent unless told to create parents', async () => {
    const dir = join(testTempDir('data-dir'), 'missing', 'data');
    await expect(prepareDataDir(dir, { createParents: false })).rejects.toThrow(DataDirError);
    await prepareDataDir(dir, { createParents: true });
    expect((await stat(dir)).isDirectory()).toBe(true);
  });
});
