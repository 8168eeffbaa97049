import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/client/errors.js';
import * as create from '../../src/cli/commands/evidence/receivers/create.js';
import * as remove from '../../src/cli/commands/evidence/receivers/delete.js';
import * as list from '../../src/cli/commands/evidence/receivers/list.js';
import { UsageError } from '../../src/cli/output/errors.js';
import { memoryIo, parseCommandLine } from '../support/cli-parse.js';
import { serviceForFile } from '../support/command-service.js';
import { testTempDir } from '../support/temp-dirs.js';

/** `evidence receivers create|list|delete`: their command lines read without a process, then a receiver's life on the real service. */

const fixture = serviceForFile('ann@example.com');

describe('evidence receivers create', () => {
  it('reads a SendGrid receiver with its key file and an SNS one with or without a topic', () => {
    expect(create.parse(parseCommandLine(['evidence', 'receivers', 'create', 'sendgrid', '--public-key-file', 'key.txt']))).toMatchObject({
      kind: 'sendgrid',
      publicKeyFile: 'key.txt',
      topicArn: undefined,
    });
    expect(create.parse(parseCommandLine(['evidence', 'receivers', 'create', 'sns']))).toMatchObject({ kind: 'sns', publicKeyFile: undefined });
    const arn = 'arn:aws:sns:eu-west-1:123456789012:ses';
    expect(create.parse(parseCommandLine(['evidence', 'receivers', 'create', 'sns', '--topic-arn', arn]))).toMatchObject({ kind: 'sns', topicArn: arn });
  });

  it('refuses an unknown kind, a SendGrid receiver without a key, and flags of the other kind', () => {
    const parse =
      (...argv: string[]) =>
      () =>
        create.parse(parseCommandLine(['evidence', 'receivers', 'create', ...argv]));
    expect(parse('mailgun')).toThrow(UsageError);
    expect(parse('sendgrid')).toThrow(/needs --public-key-file/);
    expect(parse('sendgrid', '--public-key-file', 'k', '--topic-arn', 'a')).toThrow(/--topic-arn is for sns/);
    expect(parse('sns', '--public-key-file', 'k')).toThrow(/--public-key-file is for sendgrid/);
  });
});

describe('evidence receivers delete', () => {
  it('names the receiver', () => {
    expect(remove.parse(parseCommandLine(['evidence', 'receivers', 'delete', 'r-1']))).toMatchObject({ id: 'r-1' });
  });
});

describe('evidence receivers: run', () => {
  it('creates receivers (the URL on stdout once), lists them without it, and deletes one', async () => {
    const { login: ann, service } = fixture;
    const keyFile = join(testTempDir('receivers'), 'key.txt');
    const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    await writeFile(keyFile, `${key}\n`);
    const sendgrid = memoryIo(ann.env);
    await create.run(create.parse(parseCommandLine(['evidence', 'receivers', 'create', 'sendgrid', '--public-key-file', keyFile])), sendgrid.io);
    const url = sendgrid.stdout().trim();
    expect(url).toMatch(new RegExp(`^${service.app.baseUrl}/\\S+$`));
    const [receiver] = await service.app.store.evidenceReceivers.listReceivers(ann.user.id);
    expect(sendgrid.stderr()).toBe(
      `receiver ${receiver!.id} created; give the URL above as the HTTP Post URL of SendGrid's signed event webhook: it is not shown again\n`,
    );

    const arn = 'arn:aws:sns:eu-west-1:123456789012:ses';
    const sns = memoryIo(ann.env, { json: true });
    await create.run(create.parse(parseCommandLine(['evidence', 'receivers', 'create', 'sns', '--topic-arn', arn])), sns.io);
    const snsId = (JSON.parse(sns.stdout()) as { id: string }).id;

    expect(list.parse(parseCommandLine(['evidence', 'receivers', 'list']))).toMatchObject({ program: { debug: false } });
    const listed = memoryIo(ann.env);
    await list.run(list.parse(parseCommandLine(['evidence', 'receivers', 'list'])), listed.io);
    expect(listed.stdout().split('\n').sort()).toEqual(
      ['', `${receiver!.id}  sendgrid  no events yet`, `${snsId}  sns  topic ${arn}  not confirmed  no events yet`].sort(),
    );
    expect(listed.stdout()).not.toContain(url);

    const deleted = memoryIo(ann.env);
    await remove.run(remove.parse(parseCommandLine(['evidence', 'receivers', 'delete', snsId])), deleted.io);
    expect(deleted.stderr()).toBe(`receiver ${snsId} deleted\n`);
    const json = memoryIo(ann.env, { json: true });
    await list.run(list.parse(parseCommandLine(['evidence', 'receivers', 'list'])), json.io);
    expect((JSON.parse(json.stdout()) as { id: string }[]).map((each) => each.id)).toEqual([receiver!.id]);
    await expect(remove.run(remove.parse(parseCommandLine(['evidence', 'receivers', 'delete', snsId])), memoryIo(ann.env).io)).rejects.toThrow(NotFoundError);
  });
});
