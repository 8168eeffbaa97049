import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import * as mcp from '../../src/cli/commands/mcp/server.js';
import { UsageError } from '../../src/cli/output/errors.js';
import { createIo } from '../../src/cli/output/io.js';
import { parseCommandLine } from '../support/cli-parse.js';
import { missingAddresses, serviceForFile } from '../support/command-service.js';
import { testTempDir } from '../support/temp-dirs.js';

/**
 * `mcp`'s flags, and its run spoken to line by line over streams of memory (the protocol's stdio
 * framing: one JSON-RPC message a line), against the real service as a CLI logged in by its config,
 * and with --local on a data dir of its own. The SDK's client over the built CLI is test/e2e/mcp.test.ts.
 */

const fixture = serviceForFile('ann@example.com');

describe('mcp: parse', () => {
  it('reads --local with the engine flags and --data-dir', () => {
    expect(mcp.parse(parseCommandLine(['mcp']))).toMatchObject({ local: false, dataDir: undefined, engine: { given: [] } });
    expect(mcp.parse(parseCommandLine(['mcp', '--local', '--data-dir', '/tmp/d', '--helo', 'probe.example']))).toMatchObject({
      local: true,
      dataDir: '/tmp/d',
      engine: { given: ['--helo'], values: { heloName: 'probe.example' } },
    });
  });

  it.each([
    [['--helo', 'probe.example'], '--helo needs --local'],
    [['--data-dir', '/tmp/d'], '--data-dir needs --local'],
  ])('refuses %j without --local (exit 2)', (argv, message) => {
    expect(() => mcp.parse(parseCommandLine(['mcp', ...argv]))).toThrow(UsageError);
    expect(() => mcp.parse(parseCommandLine(['mcp', ...argv]))).toThrow(message);
  });
});

/** A run of `mcp` on streams of memory: `ask` sends a request and gives its answer; `end` closes stdin and waits for the run. */
function serve(argv: string[], env: NodeJS.ProcessEnv) {
  const [stdin, stdout, stderr] = [new PassThrough(), new PassThrough(), new PassThrough()];
  let said = '';
  stderr.setEncoding('utf8').on('data', (chunk: string) => (said += chunk));
  const running = mcp.run(mcp.parse(parseCommandLine(['mcp', ...argv])), createIo({}, env, { stdin, stdout, stderr }));
  const answers = createInterface({ input: stdout })[Symbol.asyncIterator]();
  let id = 0;
  const send = (message: object) => stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  return {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test checks the shape itself
    async ask(method: string, params: object = {}): Promise<any> {
      send({ id: ++id, method, params });
      const answer = JSON.parse((await answers.next()).value as string) as { id: number; result?: unknown; error?: unknown };
      expect(answer).toMatchObject({ id });
      return answer.result ?? answer.error;
    },
    async start() {
      const started = await this.ask('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'unit', version: '1' } });
      send({ method: 'notifications/initialized' });
      return started as { serverInfo: { name: string } };
    },
    async end(): Promise<string> {
      stdin.end();
      await running;
      return said;
    },
  };
}

/** The JSON a tool answered, failing on a tool error. */
function toolData(answer: { isError?: boolean; content: { text: string }[] }): unknown {
  expect(answer.isError, answer.content[0]?.text).toBeFalsy();
  return JSON.parse(answer.content[0]!.text);
}

describe('mcp: run', () => {
  it('serves the tools on the service logged in to, and ends when stdin does', async () => {
    const { login: ann, service } = fixture;
    const server = serve([], ann.env);
    expect((await server.start()).serverInfo.name).toBe('mailverify');
    const tools = (await server.ask('tools/list')) as { tools: { name: string }[] };
    expect(tools.tools.map((tool) => tool.name).sort()).toEqual(['explain_email', 'job_results', 'job_status', 'submit_list', 'verify_email']);
    const [email] = missingAddresses(1);
    const verified = await server.ask('tools/call', { name: 'verify_email', arguments: { email } });
    expect(toolData(verified)).toMatchObject({ email, result: 'invalid' });
    expect(await server.end()).toBe(`mailverify: MCP server on stdio, verifying on the service at ${service.app.baseUrl}, profile default\n`);
    expect((await service.app.store.accounts.findUserByEmail('ann@example.com'))?.balance).toBe(99);
  });

  it('verifies on this host with --local, in the data dir given', async () => {
    const dataDir = join(testTempDir('mcp-unit'), 'data');
    const server = serve(['--local', '--data-dir', dataDir, ...fixture.service.world.engineArgs], { MAILVERIFY_CONFIG_DIR: join(dataDir, '..', 'config') });
    await server.start();
    const [email] = missingAddresses(1);
    expect(toolData(await server.ask('tools/call', { name: 'verify_email', arguments: { email } }))).toMatchObject({ email, result: 'invalid' });
    expect(await server.end()).toContain(`mailverify: MCP server on stdio, verifying on this machine (the engine here; lists kept in ${dataDir})\n`);
  });
});
