import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/client/errors.js';
import * as add from '../../src/cli/commands/webhooks/add.js';
import * as list from '../../src/cli/commands/webhooks/list.js';
import * as remove from '../../src/cli/commands/webhooks/remove.js';
import * as test from '../../src/cli/commands/webhooks/test.js';
import { memoryIo, parseCommandLine } from '../support/cli-parse.js';
import { serviceForFile } from '../support/command-service.js';

/** `webhooks add|list|test|remove` against the real service: an endpoint's whole life, as a CLI logged in by its config. */

// A public address literal: the service checks it without DNS, and no deliverer runs here to send to it.
const URL = 'https://93.184.215.14/hooks';

const fixture = serviceForFile('ann@example.com');

describe('webhooks: parse', () => {
  it('reads the URL and description, and the endpoint named', () => {
    expect(add.parse(parseCommandLine(['--profile', 'ci', 'webhooks', 'add', URL, '--description', 'crm']))).toEqual({
      program: { baseUrl: undefined, profile: 'ci', timeout: undefined, debug: false },
      url: URL,
      description: 'crm',
    });
    expect(remove.parse(parseCommandLine(['webhooks', 'remove', 'wh_1']))).toMatchObject({ id: 'wh_1' });
    expect(test.parse(parseCommandLine(['webhooks', 'test', 'wh_2']))).toMatchObject({ id: 'wh_2' });
    expect(list.parse(parseCommandLine(['--base-url', 'http://127.0.0.1:9', 'webhooks', 'list'])).program.baseUrl).toBe('http://127.0.0.1:9');
  });

  it('wants the URL and the endpoint (exit 2, from the command tree)', () => {
    expect(() => parseCommandLine(['webhooks', 'add'])).toThrow(/missing required argument 'url'/);
    expect(() => parseCommandLine(['webhooks', 'remove'])).toThrow(/missing required argument/);
  });
});

describe('webhooks: run', () => {
  it('adds an endpoint (its secret on stdout once), lists it, sends it a test event and removes it', async () => {
    const added = memoryIo(fixture.login.env);
    await add.run(add.parse(parseCommandLine(['webhooks', 'add', URL, '--description', 'crm'])), added.io);
    const [endpoint] = await fixture.service.app.store.webhooks.listEndpoints(fixture.login.user.id);
    expect(endpoint).toMatchObject({ url: URL, description: 'crm' });
    expect(added.stdout()).toBe(`${endpoint!.secret}\n`);
    expect(added.stderr()).toBe(`endpoint ${endpoint!.id} added; the secret above verifies its deliveries and is not shown again\n`);

    const listed = memoryIo(fixture.login.env);
    await list.run(list.parse(parseCommandLine(['webhooks', 'list'])), listed.io);
    expect(listed.stdout()).toBe(`${endpoint!.id}  ${URL}  no attempts yet\n`);
    expect(listed.stdout()).not.toContain(endpoint!.secret);

    const tested = memoryIo(fixture.login.env, { json: true });
    await test.run(test.parse(parseCommandLine(['webhooks', 'test', endpoint!.id])), tested.io);
    const { eventId } = JSON.parse(tested.stdout()) as { eventId: string };
    expect(eventId).toMatch(/^msg_/);

    const removed = memoryIo(fixture.login.env);
    await remove.run(remove.parse(parseCommandLine(['webhooks', 'remove', endpoint!.id])), removed.io);
    expect(removed.stderr()).toBe(`endpoint ${endpoint!.id} removed\n`);
    expect(await fixture.service.app.store.webhooks.listEndpoints(fixture.login.user.id)).toEqual([]);

    const again = memoryIo(fixture.login.env);
    await expect(remove.run(remove.parse(parseCommandLine(['webhooks', 'remove', endpoint!.id])), again.io)).rejects.toThrow(NotFoundError);
  });

  it('lists as JSON, and the service refuses an endpoint it would not send to', async () => {
    const bob = await fixture.service.loggedIn('bob@example.com');
    const listed = memoryIo(bob.env, { json: true });
    await list.run(list.parse(parseCommandLine(['webhooks', 'list'])), listed.io);
    expect(JSON.parse(listed.stdout())).toEqual([]);
    const refused = memoryIo(bob.env);
    await expect(add.run(add.parse(parseCommandLine(['webhooks', 'add', 'http://169.254.169.254/latest'])), refused.io)).rejects.toThrow(
      /^Webhooks are not sent to 169\.254\.169\.254: /,
    );
    expect(refused.stdout()).toBe('');
    expect(await fixture.service.app.store.webhooks.listEndpoints(bob.user.id)).toEqual([]);
  });
});
