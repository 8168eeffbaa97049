import { describe, expect, it } from 'vitest';
import * as create from '../../src/cli/commands/evidence/receivers/create.js';
import * as remove from '../../src/cli/commands/evidence/receivers/delete.js';
import { UsageError } from '../../src/cli/output/errors.js';
import { parseCommandLine } from '../support/cli-parse.js';

/** `evidence receivers create|delete` read their command lines without a process or a service. */

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
