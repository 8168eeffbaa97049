import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { colorLevel, createIo, type Streams } from '../../src/cli/output/io.js';

/** Where output goes and how it looks is decided in one place: these are its rules. */

describe('colorLevel', () => {
  it.each([
    ['a terminal', {}, {}, true, 1],
    ['a pipe', {}, {}, false, 0],
    ['--no-color on a terminal', { color: false }, {}, true, 0],
    ['NO_COLOR on a terminal', {}, { NO_COLOR: '1' }, true, 0],
    ['an empty NO_COLOR (means unset)', {}, { NO_COLOR: '' }, true, 1],
    ['FORCE_COLOR on a pipe', {}, { FORCE_COLOR: '1' }, false, 1],
    ['FORCE_COLOR=3 on a pipe', {}, { FORCE_COLOR: '3' }, false, 3],
    ['FORCE_COLOR=true on a pipe', {}, { FORCE_COLOR: 'true' }, false, 1],
    ['FORCE_COLOR=0 on a terminal', {}, { FORCE_COLOR: '0' }, true, 0],
    ['NO_COLOR beating FORCE_COLOR', {}, { NO_COLOR: '1', FORCE_COLOR: '1' }, true, 0],
    ['--no-color beating FORCE_COLOR', { color: false }, { FORCE_COLOR: '1' }, false, 0],
  ] as const)('%s → level %i', (_case, flags, env, isTty, level) => {
    expect(colorLevel(flags, env, isTty)).toBe(level);
  });
});

describe('createIo', () => {
  /** Streams that say whether they are terminals, as process.stdout and stderr do. */
  function streams(stdoutTty: boolean, stderrTty: boolean): Streams {
    const tty = (isTTY: boolean) => Object.assign(new PassThrough(), { isTTY });
    return { stdin: new PassThrough(), stdout: tty(stdoutTty), stderr: tty(stderrTty) };
  }

  it('draws progress only on a terminal stderr, never with --json or --quiet, never in CI', () => {
    expect(createIo({}, {}, streams(false, true)).interactive).toBe(true);
    expect(createIo({}, {}, streams(true, false)).interactive).toBe(false);
    expect(createIo({ json: true }, {}, streams(true, true)).interactive).toBe(false);
    expect(createIo({ quiet: true }, {}, streams(true, true)).interactive).toBe(false);
    expect(createIo({}, { CI: 'true' }, streams(true, true)).interactive).toBe(false);
    expect(createIo({}, { CI: '1' }, streams(true, true)).interactive).toBe(false);
    expect(createIo({}, { CI: 'false' }, streams(true, true)).interactive).toBe(true);
    expect(createIo({}, { TERM: 'dumb' }, streams(true, true)).interactive).toBe(false);
  });

  it('colours data only when stdout is a terminal and nothing says otherwise', () => {
    expect(createIo({}, {}, streams(true, false)).color.level).toBe(1);
    expect(createIo({}, {}, streams(false, true)).color.level).toBe(0);
    expect(createIo({}, { NO_COLOR: '1' }, streams(true, true)).color.level).toBe(0);
    expect(createIo({ color: false }, {}, streams(true, true)).color.red('x')).toBe('x');
  });
});
