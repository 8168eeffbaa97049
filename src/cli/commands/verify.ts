import type { Command } from 'commander';
import { selectorsOf, type ResultSelector } from '../../engine/result-filter.js';
import { VERIFIER_CONDITIONS } from '../../engine/core/reason-codes.js';
import { resultJson, type VerificationResult } from '../../engine/core/types.js';
import { jsonSafe } from '../../text/sanitize.js';
import { refuseEngineFlagsWithoutLocal, resolvedEngineOptions } from '../engine-flags.js';
import { CannotVerifyError, UsageError, VerdictMatchedError } from '../errors.js';
import { explanationText } from '../explain-format.js';
import { humanLine, parseSelectorList } from '../format.js';
import { collectAddresses } from '../input.js';
import { createIo, type Io } from '../io.js';

interface VerifyFlags {
  local?: boolean;
  failOn?: string;
  fresh?: boolean;
  explain?: boolean;
  json?: boolean;
  quiet?: boolean;
  color?: boolean;
}

/** Produces every address's result, in any order, through `onResult`. */
type ResultSource = (emails: string[], onResult: (result: VerificationResult) => void) => Promise<void>;

async function localSource(command: Command, explain: boolean): Promise<ResultSource> {
  const { createVerifier } = await import('../../engine/index.js');
  const verifier = createVerifier(await resolvedEngineOptions(command));
  if (!explain) return (emails, onResult) => verifier.verifyMany(emails, onResult);
  // Explained one at a time: each transcript holds its own address's dialogue alone, and reads in order.
  return async (emails, onResult) => {
    for (const email of new Set(emails)) {
      const result = await verifier.verify(email, { explain: true });
      for (const given of emails) if (given === email) onResult(result);
    }
  };
}

/** A result as printed: JSON with `details` when explained, else a human line with the transcript under it. */
function printed(result: VerificationResult, out: Io): string {
  if (out.json) return jsonSafe(result.details ? JSON.stringify({ ...JSON.parse(resultJson(result)), details: result.details }) : resultJson(result));
  return `${humanLine(result, out.color)}\n${result.details ? explanationText(result.details, out.color) : ''}`.replace(/\n$/, '');
}

/** The service's results for the same printing path; the client is loaded only when needed. */
async function remoteSource(command: Command, io: Io, options: { fresh?: boolean; explain?: boolean }): Promise<ResultSource> {
  const { remoteSource: fromService } = await import('../remote-verify.js');
  return fromService(command, io, options);
}

/**
 * Prints results in the order the addresses were given, each as soon as it and every address
 * before it are done, so that a slow domain early in the list is the only thing that waits.
 */
function inOrderPrinter(emails: string[], print: (result: VerificationResult) => void) {
  const waiting = new Map<string, VerificationResult[]>();
  let next = 0;
  return (result: VerificationResult) => {
    const queue = waiting.get(result.email) ?? [];
    queue.push(result);
    waiting.set(result.email, queue);
    while (next < emails.length && (waiting.get(emails[next]!)?.length ?? 0) > 0) {
      print(waiting.get(emails[next]!)!.shift()!);
      next += 1;
    }
  };
}


export async function runVerify(args: string[], command: Command): Promise<void> {
  const flags = command.optsWithGlobals<VerifyFlags>();
  if (!flags.local) refuseEngineFlagsWithoutLocal(command);
  const out = createIo(flags);
  const failOn = flags.failOn === undefined ? [] : parseSelectorList(flags.failOn, '--fail-on');
  const emails = await collectAddresses(args, out);
  if (emails.length === 0) throw new UsageError('no addresses given', 'pass addresses as arguments or - with one per line on stdin');

  const explain = flags.explain === true;
  const source = flags.local ? await localSource(command, explain) : await remoteSource(command, out, { fresh: flags.fresh, explain });
  const matched = new Set<ResultSelector>();
  const unverifiable = new Set<string>();
  let unverifiableCount = 0;
  const print = inOrderPrinter(emails, (result) => {
    if (VERIFIER_CONDITIONS.has(result.reasonCode)) {
      unverifiableCount += 1;
      unverifiable.add(result.reasonCode);
    }
    for (const selector of selectorsOf(result)) if (failOn.includes(selector)) matched.add(selector);
    out.stdout.write(`${printed(result, out)}\n`);
  });
  await source(emails, print);
  // Said first: a verdict that matched --fail-on is no verdict when the verifier could not verify.
  if (unverifiableCount > 0) {
    throw new CannotVerifyError(
      `${unverifiableCount} result${unverifiableCount === 1 ? ' is' : 's are'} unknown because the verifier cannot verify (${[...unverifiable].join(', ')}), not because of the addresses`,
      flags.local ? 'fix this machine\'s network: `mailverify doctor` names what fails' : 'the service\'s network fails: tell its operator (`mailverify doctor` shows the service\'s state)',
    );
  }
  if (matched.size > 0) throw new VerdictMatchedError([...matched]);
}
