import { existsSync } from 'node:fs';
import { extname } from 'node:path';
import type { ResultIndex } from '../../../../csv/result-index.js';
import { OUTPUT_FORMATS, writeResults, type OutputFormat, type WriteSummary } from '../../../../csv/result-writer.js';
import type { ListSource } from '../../../../csv/source.js';
import type { ResultSelector } from '../../../../engine/result-filter.js';
import { VERIFIER_CONDITIONS } from '../../../../engine/core/reason-codes.js';
import { checkWritable, writeFileAtomic } from '../../../files/atomic-write.js';
import { CannotVerifyError, UsageError } from '../../../output/errors.js';
import { NO_FAIL_ON, type FailOn } from '../../../output/fail-on.js';
import { parseSelectorList } from '../../../output/format.js';
import type { Io } from '../../../output/io.js';
import type { OutputFlags } from '../../../options/output-flags.js';
import { DEFAULT_WAIT_TIMEOUT, parseWaitTimeout } from './jobs.js';

export interface OutputPlan {
  /** A file written atomically; stdout when absent. */
  path?: string;
  format: OutputFormat;
  only?: ResultSelector[];
  /** --wait-timeout in milliseconds. */
  outageMs: number;
  flags: OutputFlags;
}

const FORMAT_BY_EXTENSION: Record<string, OutputFormat> = { '.csv': 'csv', '.json': 'json', '.ndjson': 'ndjson', '.jsonl': 'ndjson' };

/**
 * `--format`, else the output file's extension, else NDJSON on stdout. Checked before any work is
 * done, the output file's place too: a job is not paid for whose results could not be written.
 */
export async function planOutput(flags: OutputFlags): Promise<OutputPlan> {
  const only = flags.only === undefined ? undefined : parseSelectorList(flags.only, '--only');
  if (flags.format !== undefined && !(OUTPUT_FORMATS as readonly string[]).includes(flags.format)) {
    throw new UsageError(`--format takes ${OUTPUT_FORMATS.join(', ')}; got "${flags.format}"`);
  }
  let format = flags.format as OutputFormat | undefined;
  if (format === undefined && flags.output !== undefined) {
    format = FORMAT_BY_EXTENSION[extname(flags.output).toLowerCase()];
    if (format === undefined) throw new UsageError(`cannot tell the format of ${flags.output} from its name`, 'add --format csv, json or ndjson');
  }
  if (flags.output !== undefined) await checkWritable(flags.output);
  const outageMs = parseWaitTimeout(flags.waitTimeout ?? DEFAULT_WAIT_TIMEOUT);
  return { path: flags.output, format: format ?? 'ndjson', only, outageMs, flags };
}

export interface Written extends WriteSummary {
  /** Results `unknown` because the verifying side could not verify (see VERIFIER_CONDITIONS). */
  unverifiable: number;
  /** An existing --output file was replaced with such results because of --force. */
  forced: boolean;
}

/** What became of the results the verifier could not establish, for cannotVerify. */
export function unverifiableOutcome(plan: OutputPlan, summary: Written): string {
  if (plan.path === undefined) return 'they are written above';
  return summary.forced ? `${plan.path} was written anyway (--force)` : `they are written to ${plan.path}`;
}

/**
 * Writes the results where the plan says; a file only ever appears whole. Two cases leave an
 * existing file as it was: results the verifier could not establish (its network failed: such a run
 * must not wipe yesterday's cleaned list; `--force` writes it anyway), and with `strict`, a list with
 * rows that none of the jobs covers.
 */
export async function writeOutput(
  plan: OutputPlan,
  io: Io,
  content: { results: ResultIndex; source?: ListSource; signal?: AbortSignal; strict?: boolean },
): Promise<Written> {
  const options = { format: plan.format, only: plan.only, ...content };
  const unverifiable = [...content.results.values()].filter((result) => VERIFIER_CONDITIONS.has(result.reasonCode)).length;
  const replacing = unverifiable > 0 && plan.path !== undefined && existsSync(plan.path);
  if (replacing && !plan.flags.force) {
    throw cannotVerify(
      unverifiable,
      content.results,
      `${plan.path} is left as it was`,
      "fix the verifier's network (`mailverify doctor`), or replace the file anyway with --force",
    );
  }
  const refuseUnmatched = (summary: WriteSummary) => {
    if (content.strict && summary.unmatched > 0) {
      throw new UsageError(
        `--strict: ${summary.unmatched} row(s) of ${content.source?.label ?? 'the list'} are in none of the jobs${plan.path ? `; ${plan.path} is left as it was` : ''}`,
      );
    }
  };
  if (plan.path === undefined) {
    // On stdout the rows are out before the count is known: the refusal is the exit code (2) and its line.
    const written = await writeResults(io.stdout, { ...options, leaveOpen: true });
    refuseUnmatched(written);
    return { ...written, unverifiable, forced: false };
  }
  let summary: WriteSummary | undefined;
  await writeFileAtomic(plan.path, async (out) => {
    summary = await writeResults(out, options);
    // Thrown inside the write: the temp file is dropped and the old file stays.
    refuseUnmatched(summary);
  });
  return { ...summary!, unverifiable, forced: replacing };
}

/** Exit 9: how many results the verifier could not establish, and why (their reasons' codes). */
export function cannotVerify(count: number, results: ResultIndex, outcome: string, hint?: string): CannotVerifyError {
  const causes = [...new Set([...results.values()].filter((result) => VERIFIER_CONDITIONS.has(result.reasonCode)).map((result) => result.reasonCode))];
  return new CannotVerifyError(
    `${count} result${count === 1 ? ' is' : 's are'} unknown because the verifier cannot verify (${causes.join(', ')}), not because of the addresses; ${outcome}`,
    hint ?? "fix the verifier's network: `mailverify doctor` (or the service operator) names what fails",
  );
}

/** An argument as a POSIX shell reads it back. */
export function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** The command that waits for these jobs, writes their results and judges them as this run would have. */
export function resumeCommand(jobIds: string[], flags: OutputFlags, failOn: FailOn = NO_FAIL_ON): string {
  const parts = ['mailverify', 'bulk', 'results', ...jobIds, '--wait'];
  if (failOn.any.length > 0) parts.push('--fail-on', failOn.any.join(','));
  for (const gate of failOn.shares) parts.push('--fail-on', gate.given);
  if (flags.output !== undefined) parts.push('--output', flags.output);
  if (flags.format !== undefined) parts.push('--format', flags.format);
  if (flags.only !== undefined) parts.push('--only', flags.only);
  if (flags.waitTimeout !== undefined) parts.push('--wait-timeout', flags.waitTimeout);
  return parts.map(shellQuote).join(' ');
}
