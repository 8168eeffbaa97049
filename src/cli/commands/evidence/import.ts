import { stat } from 'node:fs/promises';
import type { EvidenceEvent, EvidenceSkip } from '../../../engine/evidence/event.js';
import { fsErrorText } from '../../../text/fs-errors.js';
import { terminalSafe, toSafeJson } from '../../../text/sanitize.js';
import { SKIPS_LISTED } from '../../../wire/evidence.js';
import { CliError, ExitCode, UsageError } from '../../output/errors.js';
import type { Io } from '../../output/io.js';
import { listArg, switchFlag, textFlag, type ParsedCommand } from '../../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../../options/program-options.js';
import { EVIDENCE_BATCH, withTarget, type EvidenceTarget } from './support/target.js';

/** `evidence import`'s options, checked. */
export interface ImportOptions {
  program: ProgramOptions;
  paths: string[];
  local: boolean;
  dataDir?: string;
  source?: string;
}

export function parse(parsed: ParsedCommand): ImportOptions {
  const { flags } = parsed;
  const source = textFlag(flags, 'source');
  if (source !== undefined && (source.trim() === '' || source.length > 100)) throw new UsageError('--source is a label of 1 to 100 characters');
  const local = switchFlag(flags, 'local');
  const dataDir = textFlag(flags, 'dataDir');
  if (dataDir !== undefined && !local) throw new UsageError('--data-dir needs --local');
  return { program: programOptions(parsed.program), paths: listArg(parsed, 0), local, dataDir, source: source?.trim() };
}

/** What one path given gave: its events read and added, and what was skipped (the first SKIPS_LISTED, all counted). */
export interface PathImport {
  path: string;
  read: number;
  added: number;
  skipped: EvidenceSkip[];
  skippedCount: number;
}

/** Shows how far a long import is, on a terminal only: one line on stderr, rewritten. */
function progressLine(io: Io, path: string): { count(read: number): void; done(): void } {
  if (!io.interactive || io.json || io.quiet) return { count: () => undefined, done: () => undefined };
  let shownAt = 0;
  return {
    count(read) {
      if (Date.now() - shownAt < 200) return;
      shownAt = Date.now();
      io.stderr.write(`\r\x1b[2Kreading ${terminalSafe(path)}: ${read} events`);
    },
    done: () => void io.stderr.write('\r\x1b[2K'),
  };
}

/**
 * Reads a path (a file, or a folder's files: a Maildir too) and adds its events in batches of at
 * most EVIDENCE_BATCH, each one transaction; importing the same file again adds nothing twice.
 */
export async function importPath(target: EvidenceTarget, path: string, source: string | undefined, io: Io): Promise<PathImport> {
  const { readEvidencePath } = await import('../../../engine/evidence/read.js');
  const outcome: PathImport = { path, read: 0, added: 0, skipped: [], skippedCount: 0 };
  const progress = progressLine(io, path);
  let batch: EvidenceEvent[] = [];
  const send = async () => {
    if (batch.length > 0) outcome.added += await target.add(batch);
    batch = [];
  };
  try {
    for await (const read of readEvidencePath(path, { source })) {
      if ('skip' in read) {
        if (++outcome.skippedCount <= SKIPS_LISTED) outcome.skipped.push(read.skip);
        continue;
      }
      batch.push(read.event);
      outcome.read += 1;
      progress.count(outcome.read);
      if (batch.length >= EVIDENCE_BATCH) await send();
    }
    await send();
  } finally {
    progress.done();
  }
  return outcome;
}

function printHuman(outcome: PathImport, io: Io): void {
  const { path, read, added, skippedCount } = outcome;
  io.stdout.write(`${terminalSafe(path)}: ${read} read, ${added} added, ${skippedCount} skipped\n`);
  for (const skip of outcome.skipped) io.stdout.write(`  skipped ${terminalSafe(skip.file)} ${terminalSafe(skip.where)}: ${terminalSafe(skip.why)}\n`);
  if (skippedCount > outcome.skipped.length) io.stdout.write(`  … and ${skippedCount - outcome.skipped.length} more skipped\n`);
}

/** Imports each path given into the account's (or the local data dir's) evidence; exit 0 when anything was read. */
export async function run(options: ImportOptions, io: Io): Promise<void> {
  for (const path of options.paths) {
    await stat(path).catch((error: unknown) => {
      throw new UsageError(`cannot read ${path}: ${fsErrorText(error)}`);
    });
  }
  const outcomes = await withTarget(options, io, async (target) => {
    const done: PathImport[] = [];
    for (const path of options.paths) {
      const outcome = await importPath(target, path, options.source, io);
      if (!io.json) printHuman(outcome, io);
      done.push(outcome);
    }
    return done;
  });
  const read = outcomes.reduce((sum, each) => sum + each.read, 0);
  if (io.json) {
    const added = outcomes.reduce((sum, each) => sum + each.added, 0);
    const skippedCount = outcomes.reduce((sum, each) => sum + each.skippedCount, 0);
    io.stdout.write(`${toSafeJson({ read, added, skippedCount, files: outcomes })}\n`);
  }
  if (read === 0) throw new CliError('no evidence was read from what was given', ExitCode.usage, '`mailverify help evidence` lists the formats read');
}
