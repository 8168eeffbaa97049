import { describe, expect, it } from 'vitest';
import { parse, run } from '../../src/cli/commands/verify.js';
import { UsageError } from '../../src/cli/output/errors.js';
import { memoryIo, parseCommandLine } from '../support/cli-parse.js';

/** `verify`'s flags, checked before an address is read, and its run up to the addresses. */

const options = (...argv: string[]) => parse(parseCommandLine(['verify', ...argv]));

describe('verify: parse', () => {
  it('reads the addresses and flags into options', () => {
    expect(options('a@example.com', 'b@example.org', '--fresh', '--explain', '--fail-on', 'invalid,unknown')).toMatchObject({
      args: ['a@example.com', 'b@example.org'],
      local: false,
      fresh: true,
      explain: true,
      failOn: ['invalid', 'unknown'],
    });
    expect(options('--local', '--no-web-check', '--dns-server', '9.9.9.9', 'a@example.com').engine).toMatchObject({
      values: { dnsServers: ['9.9.9.9'] },
      noWebCheck: true,
    });
  });

  it('takes the program-wide flags too', () => {
    const parsed = parse(
      parseCommandLine(['--base-url', 'http://127.0.0.1:9', '--profile', 'staging', '--timeout', '500', '--debug', 'verify', 'a@example.com']),
    );
    expect(parsed.program).toEqual({ baseUrl: 'http://127.0.0.1:9', profile: 'staging', timeout: 500, debug: true });
  });

  it.each([
    [['--no-web-check'], '--no-web-check needs --local'],
    [['--proxy', 'socks5://127.0.0.1:1080'], '--proxy needs --local'],
    [['--fail-on', 'sometimes'], '--fail-on'],
  ])('refuses %j (exit 2)', (argv, message) => {
    expect(() => options('a@example.com', ...argv)).toThrow(UsageError);
    expect(() => options('a@example.com', ...argv)).toThrow(message);
  });
});

describe('verify: run', () => {
  it('refuses an empty stdin (exit 2) before it verifies anything', async () => {
    const { io, stdout } = memoryIo({}, { stdin: '\n' });
    await expect(run(options('-'), io)).rejects.toThrow('no addresses given');
    expect(stdout()).toBe('');
  });
});
