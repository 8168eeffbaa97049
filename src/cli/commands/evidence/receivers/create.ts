import { readFile } from 'node:fs/promises';
import { toSafeJson } from '../../../../text/sanitize.js';
import { RECEIVER_KINDS, type CreateReceiverRequest, type ReceiverKind } from '../../../../wire/evidence-receivers.js';
import { UsageError } from '../../../output/errors.js';
import type { Io } from '../../../output/io.js';
import { textArg, textFlag, type ParsedCommand } from '../../../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../../../options/program-options.js';
import { withClient } from '../../../session/with-client.js';

// `mailverify evidence receivers …`: the account's evidence receivers (docs/evidence.md "Live from an ESP").

export interface CreateOptions {
  program: ProgramOptions;
  kind: ReceiverKind;
  /** SendGrid: the file holding the verification key SendGrid shows (base64 or PEM). */
  publicKeyFile?: string;
  /** SNS: the only topic taken. */
  topicArn?: string;
}

export function parse(parsed: ParsedCommand): CreateOptions {
  const kind = textArg(parsed, 0);
  if (!(RECEIVER_KINDS as readonly string[]).includes(kind)) throw new UsageError(`"${kind}" is no receiver kind; give ${RECEIVER_KINDS.join(' or ')}`);
  const publicKeyFile = textFlag(parsed.flags, 'publicKeyFile');
  const topicArn = textFlag(parsed.flags, 'topicArn');
  if (kind === 'sendgrid' && publicKeyFile === undefined) {
    throw new UsageError('a SendGrid receiver needs --public-key-file', "save the verification key from SendGrid's signed event webhook settings to a file");
  }
  if (kind === 'sendgrid' && topicArn !== undefined) throw new UsageError('--topic-arn is for sns receivers');
  if (kind === 'sns' && publicKeyFile !== undefined)
    throw new UsageError('--public-key-file is for sendgrid receivers: SNS signs with certificates of its own');
  return { program: programOptions(parsed.program), kind: kind as ReceiverKind, publicKeyFile, topicArn };
}

async function publicKeyFrom(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** Creates a receiver and prints its URL on stdout, the only time it is ever shown. */
export async function run({ program, kind, publicKeyFile, topicArn }: CreateOptions, io: Io): Promise<void> {
  const request: CreateReceiverRequest = { kind };
  if (publicKeyFile !== undefined) request.publicKey = (await publicKeyFrom(publicKeyFile)).trim();
  if (topicArn !== undefined) request.topicArn = topicArn;
  await withClient(program, io, async (client) => {
    const created = await client.createEvidenceReceiver(request);
    if (io.json) return void io.stdout.write(`${toSafeJson(created)}\n`);
    io.stdout.write(`${created.url}\n`);
    const where =
      kind === 'sendgrid' ? "as the HTTP Post URL of SendGrid's signed event webhook" : 'as the https endpoint of an SNS subscription to the SES topic';
    if (!io.quiet) io.stderr.write(`receiver ${created.id} created; give the URL above ${where}: it is not shown again\n`);
  });
}
