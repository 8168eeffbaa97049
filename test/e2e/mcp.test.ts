/**
 * `mailverify mcp` spoken to by the MCP SDK's own Client over its StdioClientTransport, which spawns
 * the BUILT CLI (`npm run build` first): with --local against loopback DNS and SMTP fixtures (the
 * five tools listed, a 5-address list cleaned through submit_list and job_results, errors as tool
 * errors), and against the real service on an ephemeral port (a retried call charged once).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliWorld, type CliWorld } from '../support/cli-world.js';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { localFixtureFlags, mxZones } from '../support/engine-fixtures.js';
import { call, MAIL_DOMAIN } from '../support/service-app.js';
import { BIN } from '../support/service.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';
import { testTempDir } from '../support/temp-dirs.js';

const HOST = '127.0.17.91';
const DOMAIN = 'mcp.local.test';
const TOOLS = ['explain_email', 'job_results', 'job_status', 'submit_list', 'verify_email'];

interface Connected {
  client: Client;
  /** What the server wrote on stderr. */
  stderr(): string;
  /** Protocol errors the client met (a line on stdout that is not a message, ...). */
  errors: Error[];
  close(): Promise<void>;
}

/** The SDK's client, connected to `mailverify mcp <args>` spawned from the built CLI with `env`. */
async function connect(args: string[], env: Record<string, string>): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: { ...(process.env as Record<string, string>), NO_COLOR: '1', MAILVERIFY_TOKEN: '', DBUS_SESSION_BUS_ADDRESS: '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'mailverify-test', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return { client, stderr: () => stderr, errors, close: () => client.close() };
}

interface ToolAnswer {
  isError?: boolean;
  content: { type: string; text?: string }[];
}

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  return (await client.callTool({ name, arguments: args })) as ToolAnswer;
}

/** The JSON a tool answered (its first text), failing on a tool error. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test checks the shape itself
async function data<T = Record<string, any>>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const answer = await callTool(client, name, args);
  expect(answer.isError, answer.content[0]?.text).toBeFalsy();
  return JSON.parse(answer.content[0]!.text!) as T;
}

describe('mcp --local', () => {
  let dns: DnsFixture;
  let smtp: SmtpFixture;
  let server: Connected;
  let dir: string;

  beforeAll(async () => {
    const port = await freePort(HOST);
    smtp = await startSmtpServer({ host: HOST, port, mailboxes: [`ann@${DOMAIN}`, `bob@${DOMAIN}`, `cy@${DOMAIN}`] });
    dns = await startDnsServer(mxZones(DOMAIN, { [`mx.${DOMAIN}`]: HOST }));
    dir = testTempDir('mcp-local');
    const engine = localFixtureFlags(dns, port);
    server = await connect(engine, { MAILVERIFY_LOCAL_DATA_DIR: join(dir, 'data'), MAILVERIFY_CONFIG_DIR: join(dir, 'config') });
  }, 30_000);

  afterAll(async () => {
    await server?.close();
    await Promise.all([smtp?.close(), dns?.close()]);
  });

  it('lists the five tools, each with an input schema and its cost in its description', async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.description, tool.name).toMatch(/Costs/);
      expect(tool.inputSchema.type).toBe('object');
    }
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.verify_email!.inputSchema.required).toEqual(['email']);
    expect(Object.keys(byName.submit_list!.inputSchema.properties!)).toEqual(expect.arrayContaining(['emails', 'file', 'name', 'wait', 'idempotency_key']));
    expect(byName.job_status!.inputSchema.required).toEqual(['job_id']);
    expect(Object.keys(byName.job_results!.inputSchema.properties!)).toEqual(expect.arrayContaining(['job_id', 'only']));
    expect(byName.job_status!.description).toMatch(/Costs nothing/);
  });

  it('cleans a 5-address list: submit_list, then job_status until completed, then job_results', { timeout: 60_000 }, async () => {
    const emails = [`ann@${DOMAIN}`, `bob@${DOMAIN}`, `gone@${DOMAIN}`, `cy@${DOMAIN}`, `nobody@${DOMAIN}`];
    const submitted = await data(server.client, 'submit_list', { emails, name: 'five' });
    expect(submitted).toMatchObject({ queued: 5, rows: 5, duplicates: 0, not_sent: 0 });
    // The same call again (an agent retrying) is the same job.
    expect((await data(server.client, 'submit_list', { emails, name: 'five' })).job_id).toBe(submitted.job_id);

    let status = await data(server.client, 'job_status', { job_id: submitted.job_id });
    for (let tries = 0; status.status !== 'completed' && tries < 200; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await data(server.client, 'job_status', { job_id: submitted.job_id });
    }
    expect(status).toMatchObject({ job_id: submitted.job_id, status: 'completed', total: 5, processed: 5, progress_percent: 100 });

    const results = await data(server.client, 'job_results', { job_id: submitted.job_id });
    expect(results.counts).toEqual({ valid: 3, invalid: 2, risky: 0, catch_all: 0, unknown: 0 });
    expect(results.results.map((each: { email: string; result: string }) => [each.email, each.result])).toEqual([
      [`ann@${DOMAIN}`, 'valid'],
      [`bob@${DOMAIN}`, 'valid'],
      [`gone@${DOMAIN}`, 'invalid'],
      [`cy@${DOMAIN}`, 'valid'],
      [`nobody@${DOMAIN}`, 'invalid'],
    ]);
    const invalid = await data(server.client, 'job_results', { job_id: submitted.job_id, only: ['mailbox_not_found'], limit: 1 });
    expect(invalid).toMatchObject({ matching: 2, offset: 0, next_offset: 1 });
    expect(invalid.results.map((each: { email: string }) => each.email)).toEqual([`gone@${DOMAIN}`]);
  });

  it('reads a list from a file and waits for it; verifies and explains one address', { timeout: 60_000 }, async () => {
    const file = join(dir, 'lists', 'contacts.csv');
    await mkdir(join(dir, 'lists'), { recursive: true });
    await writeFile(file, `name,email\nAnn,ann@${DOMAIN}\nAnn again,ANN@${DOMAIN}\nBroken,not-an-address\nGone,gone@${DOMAIN}\n`);
    const waited = await data(server.client, 'submit_list', { file, wait: true });
    expect(waited).toMatchObject({ queued: 2, rows: 4, duplicates: 1, not_sent: 1, status: 'completed', counts: { valid: 1, invalid: 1 } });

    expect(await data(server.client, 'verify_email', { email: `bob@${DOMAIN}` })).toMatchObject({ email: `bob@${DOMAIN}`, result: 'valid' });
    const explained = await callTool(server.client, 'explain_email', { email: `gone@${DOMAIN}` });
    expect(JSON.parse(explained.content[0]!.text!)).toMatchObject({ result: 'invalid', reasonCode: 'mailbox_not_found' });
    expect(explained.content[1]!.text).toMatch(/RCPT TO:<gone@mcp\.local\.test>/);
  });

  it('answers failures as tool errors and keeps serving; nothing but protocol on stdout', async () => {
    const unknownJob = await callTool(server.client, 'job_status', { job_id: 'no-such-job' });
    expect(unknownJob.isError).toBe(true);
    expect(unknownJob.content[0]!.text).toMatch(/no job no-such-job/);
    const neither = await callTool(server.client, 'submit_list', { name: 'nothing' });
    expect(neither).toMatchObject({ isError: true, content: [{ text: 'give either emails or file, not both nor neither' }] });
    const missing = await callTool(server.client, 'submit_list', { file: join(dir, 'missing.csv') });
    expect(missing.isError).toBe(true);
    expect(missing.content[0]!.text).toContain('missing.csv');
    const badFilter = await callTool(server.client, 'job_results', { job_id: 'x', only: ['sometimes'] });
    expect(badFilter).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('"sometimes" is neither') }] });
    const malformed = await callTool(server.client, 'verify_email', {});
    expect(malformed.isError).toBe(true);
    expect((await server.client.listTools()).tools).toHaveLength(5);
    expect(server.errors).toEqual([]);
    expect(server.stderr()).toMatch(/MCP server on stdio, verifying on this machine/);
  });
});

describe('mcp against the service', () => {
  let world: CliWorld;
  let server: Connected;
  const balance = async () => (await call(world.service.baseUrl, 'GET', '/v1/account', { token: world.token })).body.balance as number;

  beforeAll(async () => {
    world = await startCliWorld({ mailboxes: [`ann@${MAIL_DOMAIN}`], user: 'agent@example.com' });
    // The token comes from the config store, as `login` left it.
    const login = await world.cli.run(['login', '--with-token', '--insecure-storage'], { stdin: `${world.token}\n`, env: { MAILVERIFY_TOKEN: '' } });
    expect(login.code, login.stderr).toBe(0);
    server = await connect([], { MAILVERIFY_BASE_URL: world.service.baseUrl, MAILVERIFY_CONFIG_DIR: world.cli.configDir });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await world?.close();
  });

  it('charges a retried verify_email once, and a retried submit_list once', { timeout: 60_000 }, async () => {
    const before = await balance();
    const first = await data(server.client, 'verify_email', { email: `ann@${MAIL_DOMAIN}` });
    const again = await data(server.client, 'verify_email', { email: `ann@${MAIL_DOMAIN}` });
    expect(first).toMatchObject({ email: `ann@${MAIL_DOMAIN}`, result: 'valid' });
    expect(again).toEqual(first);
    expect(await balance()).toBe(before - 1);

    const emails = [`ann@${MAIL_DOMAIN}`, `bob@${MAIL_DOMAIN}`, `cy@${MAIL_DOMAIN}`];
    const job = await data(server.client, 'submit_list', { emails });
    expect((await data(server.client, 'submit_list', { emails })).job_id).toBe(job.job_id);
    expect(await balance()).toBe(before - 1 - 3);
    // Asking again on purpose is a new key: charged again.
    await data(server.client, 'verify_email', { email: `ann@${MAIL_DOMAIN}`, idempotency_key: 'ask-again-1' });
    expect(await balance()).toBe(before - 1 - 3 - 1);
  });

  it('says a refused token as a tool error naming the fix', async () => {
    const refused = await connect([], { MAILVERIFY_BASE_URL: world.service.baseUrl, MAILVERIFY_CONFIG_DIR: join(testTempDir('mcp-none'), 'config') });
    try {
      const answer = await callTool(refused.client, 'job_status', { job_id: 'x' });
      expect(answer).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/not logged in .*mailverify login/) }] });
    } finally {
      await refused.close();
    }
  });
});
