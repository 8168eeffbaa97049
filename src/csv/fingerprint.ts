import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';

/** What a list file was when it was submitted, to tell at merge-back whether it changed since. */
export interface FileFingerprint {
  size: number;
  mtimeMs: number;
  sha256: string;
}

/** Read in pieces this large, the hash of the 1M-row list took half the time it took in the default 64 KiB ones (120 ms). */
const PIECE_BYTES = 1024 * 1024;

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path, { highWaterMark: PIECE_BYTES }), hash);
  return hash.digest('hex');
}

export async function fingerprintOf(path: string): Promise<FileFingerprint> {
  const { size, mtimeMs } = await stat(path);
  return { size, mtimeMs, sha256: await sha256Of(path) };
}

/**
 * Whether the file's content differs from the fingerprint. Same size and modification time is
 * taken as unchanged, as make and rsync take it, without reading the file; otherwise the content
 * decides (a file saved again unchanged is still the same list).
 */
export async function changedSince(path: string, recorded: FileFingerprint): Promise<boolean> {
  const { size, mtimeMs } = await stat(path);
  if (size === recorded.size && mtimeMs === recorded.mtimeMs) return false;
  return size !== recorded.size || (await sha256Of(path)) !== recorded.sha256;
}
