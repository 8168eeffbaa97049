import { selectorsOf, type ResultSelector } from '../../engine/result-filter.js';
import { VERIFIER_CONDITIONS } from '../../engine/core/reason-codes.js';
import { resultJson, type VerificationResult } from '../../engine/core/types.js';
import { jsonSafe } from '../../text/sanitize.js';
import { engineFlags, refuseEngineFlagsWithoutLocal, resolvedEngineOptions, type EngineFlags } from '../options/engine-flags.js';
import { CannotVerifyError, sandboxNeedsLocal, UsageError, VerdictMatchedError } from '../output/errors.js';
import { explanationText } from '../output/explain-format.js';
import { humanLine, parseSelectorList } from '../output/format.js';
import { collectAddresses } from '../output/input.js';
import type { Io } from '../output/io.js';
import { listArg, switchFlag, textFlag, type ParsedCommand } from '../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../options/program-options.js';
import type { ServiceVerifier } from '../../server/local-run.js';
import { localDataDir } from '../local-service/data-dir.js';
import { parseEvidenceWindow } from '../local-service/service-policy.js';

/** `verify`'s options, checked. */
export interface VerifyOptions {
  program: ProgramOptions;
  /** The addresses as given; `-` reads them from stdin. */
  args: string[];
  local: boolean;
  failOn: ResultSelector[];
  fresh: boolean;
  explain: boolean;
  /** `--sandbox` (with --local): the engine's sandbox answers, no server asked. */
  sandbox: boolean;
  engine: EngineFlags;
  /** --evidence-window as given, with --local. */
  evidenceWindow?: string;
}

/** `verify`'s command line as options, or a UsageError. */
export function parse(parsed: ParsedCommand): VerifyOptions {
  const { flags } = parsed;
  const local = switchFlag(flags, 'local');
  const engine = engineFlags(parsed);
  if (!local) refuseEngineFlagsWithoutLocal(engine);
  const sandbox = switchFlag(flags, 'sandbox');
  if (sandbox && !local) throw sandboxNeedsLocal();
  const failOn = textFlag(flags, 'failOn');
  return {
    program: programOptions(parsed.program),
    args: listArg(parsed, 0),
    local,
    failOn: failOn === undefined ? [] : parseSelectorList(failOn, '--fail-on'),
    fresh: switchFlag(flags, 'fresh'),
    explain: switchFlag(flags, 'explain'),
    sandbox,
    engine,
    evidenceWindow: textFlag(flags, 'evidenceWindow'),
  };
}

/** Produces every address's result, in any order, through `onResult`. */
type ResultSource = (emails: string[], onResult: (result: VerificationResult) => void) => Promise<void>;

/** The sandbox's answers (docs/api.md "Sandbox"), as a test token gets them from a service: nothing asked of any server. */
async function sandboxSource(): Promise<ResultSource> {
  const { sandboxResult } = await import('../../engine/sandbox.js');
  return async (emails, onResult) => {
    for (const email of emails) onResult(sandboxResult(email));
  };
}

/**
 * The engine in this process, with the evidence `evidence import --local` kept in the local data dir
 * (MAILVERIFY_LOCAL_DATA_DIR, else the OS default) when there is a store there; none is made.
 */
async function localSource(options: VerifyOptions, out: Io): Promise<{ source: ResultSource; close(): Promise<void> }> {
  const { createVerifier } = await import('../../engine/index.js');
  const engine = createVerifier(await resolvedEngineOptions(options.engine, out.env));
  const windowMs = parseEvidenceWindow(options.evidenceWindow, out.env);
  const dataDir = localDataDir(undefined, out.env);
  // Loaded here: a verification through a service needs no store.
  const [{ openStore }, { hasLocalStore, localAccount, withLocalEvidence }] = await Promise.all([
    import('../../server/store/open/open-store.js'),
    import('../local-service/local-account.js'),
  ]);
  const store = windowMs > 0 && hasLocalStore(dataDir) ? await openStore({ dataDir }) : undefined;
  const owner = store && (await localAccount(store)).id;
  const verifier: ServiceVerifier = store ? withLocalEvidence(engine, store, windowMs, (message) => out.stderr.write(`${message}\n`)) : engine;
  const close = async () => store?.close();
  if (!options.explain) return { source: (emails, onResult) => verifier.verifyMany(emails, onResult, { owner }), close };
  // Explained one at a time: each transcript holds its own address's dialogue alone, and reads in order.
  const source: ResultSource = async (emails, onResult) => {
    for (const email of new Set(emails)) {
      const result = await verifier.verify(email, { explain: true, owner });
      for (const given of emails) if (given === email) onResult(result);
    }
  };
  return { source, close };
}

/** A result as printed: JSON with `details` when explained, else a human line with the transcript under it. */
function printed(result: VerificationResult, out: Io): string {
  if (out.json) return jsonSafe(result.details ? JSON.stringify({ ...JSON.parse(resultJson(result)), details: result.details }) : resultJson(result));
  return `${humanLine(result, out.color)}\n${result.details ? explanationText(result.details, out.color) : ''}`.replace(/\n$/, '');
}

/** The service's results for the same printing path; the client is loaded only when needed. */
async function remoteSource(program: ProgramOptions, io: Io, options: { fresh?: boolean; explain?: boolean }): Promise<ResultSource> {
  const { remoteSource: fromService } = await import('../session/remote-verify.js');
  return fromService(program, io, options);
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

/** Verifies the addresses, here or through the service, and prints each result in the order given. */
export async function run(options: VerifyOptions, out: Io): Promise<void> {
  const { failOn, explain } = options;
  const emails = await collectAddresses(options.args, out);
  if (emails.length === 0) throw new UsageError('no addresses given', 'pass addresses as arguments or - with one per line on stdin');

  const local = options.local && !options.sandbox ? await localSource(options, out) : undefined;
  const source = options.sandbox ? await sandboxSource() : (local?.source ?? (await remoteSource(options.program, out, { fresh: options.fresh, explain })));
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
  try {
    await source(emails, print);
  } finally {
    await local?.close();
  }
  // Said first: a verdict that matched --fail-on is no verdict when the verifier could not verify.
  if (unverifiableCount > 0) {
    throw new CannotVerifyError(
      `${unverifiableCount} result${unverifiableCount === 1 ? ' is' : 's are'} unknown because the verifier cannot verify (${[...unverifiable].join(', ')}), not because of the addresses`,
      options.local
        ? "fix this machine's network: `mailverify doctor` names what fails"
        : "the service's network fails: tell its operator (`mailverify doctor` shows the service's state)",
    );
  }
  if (matched.size > 0) throw new VerdictMatchedError([...matched]);
}
