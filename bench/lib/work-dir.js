import { mkdir } from 'node:fs/promises';

/** Where benchmarks keep generated inputs and scratch files: git-ignored, reused between runs. */
export const WORK_DIR = new URL('../.work/', import.meta.url);

export async function ensureWorkDir() {
  await mkdir(WORK_DIR, { recursive: true });
  return WORK_DIR;
}
