import { mkdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { afterCommand, DEFAULT_REGISTRY, isNewer, noticeAllowed, plan, readState, registryUrl, stateFile, writeState } from '../../src/cli/update-notice.js';

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2026, 10, 27, 12);

describe('isNewer', () => {
  it('compares releases by number, and never offers a pre-release or garbage', () => {
    expect(isNewer('0.2.0', '0.1.0')).toBe(true);
    expect(isNewer('0.10.0', '0.9.9')).toBe(true);
    expect(isNewer('1.0.0', '0.99.99')).toBe(true);
    expect(isNewer('0.1.0', '0.1.0')).toBe(false);
    expect(isNewer('0.0.9', '0.1.0')).toBe(false);
    expect(isNewer('2.0.0-beta.1', '0.1.0')).toBe(false);
    expect(isNewer('latest', '0.1.0')).toBe(false);
    expect(isNewer(undefined, '0.1.0')).toBe(false);
    expect(isNewer('0.1.1', '0.1.0-rc.1')).toBe(true);
  });
});

describe('plan', () => {
  it('checks when there was no check today, and says a newer version at most once a day', () => {
    expect(plan({}, NOW, '0.1.0')).toEqual({ notice: undefined, check: true });
    expect(plan({ lastCheck: NOW - DAY + 1000 }, NOW, '0.1.0').check).toBe(false);
    expect(plan({ lastCheck: NOW - DAY }, NOW, '0.1.0').check).toBe(true);
    const known = { lastCheck: NOW - 1000, latest: '0.2.0' };
    expect(plan(known, NOW, '0.1.0').notice).toBe('mailverify 0.2.0 is available (this is 0.1.0): npm install -g mailverify@latest');
    expect(plan({ ...known, lastNotice: NOW - 1000 }, NOW, '0.1.0').notice).toBeUndefined();
    expect(plan({ ...known, lastNotice: NOW - DAY }, NOW, '0.1.0').notice).toBeDefined();
    // Updated since: nothing to say.
    expect(plan(known, NOW, '0.2.0').notice).toBeUndefined();
  });
});

describe('noticeAllowed', () => {
  const person = { isTty: true, json: false, quiet: false, env: {} };
  it('only on a terminal, never with --json or --quiet, in CI or when turned off', () => {
    expect(noticeAllowed(person)).toBe(true);
    expect(noticeAllowed({ ...person, isTty: false })).toBe(false);
    expect(noticeAllowed({ ...person, json: true })).toBe(false);
    expect(noticeAllowed({ ...person, quiet: true })).toBe(false);
    expect(noticeAllowed({ ...person, env: { CI: 'true' } })).toBe(false);
    expect(noticeAllowed({ ...person, env: { CI: 'false' } })).toBe(true);
    expect(noticeAllowed({ ...person, env: { NO_UPDATE_NOTIFIER: '1' } })).toBe(false);
    expect(noticeAllowed({ ...person, env: { MAILVERIFY_NO_UPDATE_CHECK: '1' } })).toBe(false);
  });
});

describe('registryUrl', () => {
  it('MAILVERIFY_UPDATE_REGISTRY, then npm_config_registry, then the public registry; only http(s)', () => {
    expect(registryUrl({})).toBe(DEFAULT_REGISTRY);
    expect(registryUrl({ npm_config_registry: 'https://npm.example.com/repo/' })).toBe('https://npm.example.com/repo');
    expect(registryUrl({ npm_config_registry: 'https://npm.example.com/', MAILVERIFY_UPDATE_REGISTRY: 'http://127.0.0.1:4873' })).toBe('http://127.0.0.1:4873');
    expect(registryUrl({ MAILVERIFY_UPDATE_REGISTRY: 'file:///etc' })).toBeUndefined();
    expect(registryUrl({ MAILVERIFY_UPDATE_REGISTRY: 'not a url' })).toBeUndefined();
  });
});

/** A state dir that cannot be made: below a file. */
function ensureCacheDirBelow(file: string): string {
  mkdirSync(join(file, 'below-a-file'), { recursive: true });
  return join(file, 'below-a-file');
}

describe('afterCommand', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mailverify-update-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  function terminal(): { stream: PassThrough & { isTTY: boolean }; written: () => string } {
    const stream = Object.assign(new PassThrough(), { isTTY: true });
    let written = '';
    stream.on('data', (chunk: Buffer) => (written += chunk.toString()));
    return { stream, written: () => written };
  }

  it('writes the notice once and remembers when, without starting a check the same day', () => {
    const path = stateFile(dir);
    const checked = Date.now() - 1000;
    writeState(path, { lastCheck: checked, latest: '999.0.0' });
    const env = {};
    const { stream, written } = terminal();
    afterCommand({ json: false, quiet: false, env, stderr: stream, stateDir: () => dir });
    expect(written()).toContain('mailverify 999.0.0 is available');
    expect(readState(path)).toMatchObject({ lastCheck: checked, latest: '999.0.0', lastNotice: expect.any(Number) });
    const again = terminal();
    afterCommand({ json: false, quiet: false, env, stderr: again.stream, stateDir: () => dir });
    expect(again.written()).toBe('');
  });

  it('a state file that is not JSON is no state, and an unusable state dir is never an error', async () => {
    const path = stateFile(dir);
    await writeFile(path, '{ not json');
    expect(readState(path)).toEqual({});
    // No registry to ask (not http), so nothing is started from a unit test.
    const { stream, written } = terminal();
    afterCommand({ json: false, quiet: false, env: { MAILVERIFY_UPDATE_REGISTRY: 'file:///nowhere' }, stderr: stream, stateDir: () => dir });
    expect(written()).toBe('');
    const belowAFile = () => ensureCacheDirBelow(path);
    expect(() => afterCommand({ json: false, quiet: false, env: {}, stderr: stream, stateDir: belowAFile })).not.toThrow();
    expect(written()).toBe('');
  });
});
