import { isRelease, readState, writeState } from './update-notice.js';

/**
 * The update check, run as a detached child by update-notice.ts: asks the registry for the
 * package's `latest` dist-tag within a short timeout and leaves the answer (or the failure) in the
 * state file for the next run. Its output goes nowhere; it never outlives the timeout by much.
 * Arguments: the state file, the registry URL of the package.
 */
const TIMEOUT_MS = 5_000;

async function latestFrom(url: string): Promise<string> {
  // The abbreviated document: dist-tags without every version's full manifest.
  const response = await fetch(url, {
    headers: { accept: 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8' },
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`the registry answered ${response.status}`);
  const body = (await response.json()) as { 'dist-tags'?: { latest?: unknown } };
  const latest = body['dist-tags']?.latest;
  if (typeof latest !== 'string' || !isRelease(latest)) throw new Error('no release in dist-tags.latest');
  return latest;
}

const [statePath, url] = process.argv.slice(2);
if (statePath !== undefined && url !== undefined) {
  let outcome: { latest: string; answeredAt: number } | { failedAt: number };
  try {
    outcome = { latest: await latestFrom(url), answeredAt: Date.now() };
  } catch {
    outcome = { failedAt: Date.now() };
  }
  try {
    writeState(statePath, { ...readState(statePath), ...outcome });
  } catch {
    // The config dir went away (or is not ours to write): the next run checks again.
  }
}
