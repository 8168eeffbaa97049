import { extname } from 'node:path';
import type { ResultIndex } from '../../../csv/result-index.js';
import { OUTPUT_FORMATS, writeResults, type OutputFormat, type WriteSummary } from '../../../csv/result-writer.js';
import type { ListSource } from '../../../csv/source.js';
import type { ResultSelector } from '../../../engine/result-filter.js';
import { checkWritable, writeFileAtomic } from '../../atomic-write.js';
import { UsageError } from '../../errors.js';
import { parseSelectorList } from '../../format.js';
import type { Io } from '../../io.js';
import { DEFAULT_WAIT_TIMEOUT, parseWaitTimeout } from './jobs.js';

/** The flags that say where and how results are written (`bulk results`, `bulk submit --wait`). */
export interface OutputFlags {
  output?: string;
  format?: string;
  only?: string;
  /** How long a wait bears a service that does not answer (`--wait-timeout`); part of resuming as this run would. */
  waitTimeout?: string;
}

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

/** Writes the results where the plan says; a file only ever appears whole. */
export async function writeOutput(plan: OutputPlan, io: Io, content: { results: ResultIndex; source?: ListSource; signal?: AbortSignal }): Promise<WriteSummary> {
  const options = { format: plan.format, only: plan.only, ...content };
  if (plan.path === undefined) return writeResults(io.stdout, options);
  let summary: WriteSummary | undefined;
  await writeFileAtomic(plan.path, async (out) => {
    summary = await writeResults(out, options);
  });
  return summary!;
}

/** An argument as a POSIX shell reads it back. */
export function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** The command that waits for these jobs and writes their results as this run would have. */
export function resumeCommand(jobIds: string[], flags: OutputFlags): string {
  const parts = ['mailverify', 'bulk', 'results', ...jobIds, '--wait'];
  if (flags.output !== undefined) parts.push('--output', flags.output);
  if (flags.format !== undefined) parts.push('--format', flags.format);
  if (flags.only !== undefined) parts.push('--only', flags.only);
  if (flags.waitTimeout !== undefined) parts.push('--wait-timeout', flags.waitTimeout);
  return parts.map(shellQuote).join(' ');
}
