import type { EvidenceEventInfo } from '../../../wire/evidence.js';
import { terminalSafe, toSafeJson } from '../../../text/sanitize.js';
import { UsageError } from '../../output/errors.js';
import type { Io } from '../../output/io.js';
import { switchFlag, textFlag, type ParsedCommand } from '../../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../../options/program-options.js';
import { withTarget } from './support/target.js';

export interface ListOptions {
  program: ProgramOptions;
  email?: string;
  local: boolean;
  dataDir?: string;
}

export function parse(parsed: ParsedCommand): ListOptions {
  const { flags } = parsed;
  const local = switchFlag(flags, 'local');
  const dataDir = textFlag(flags, 'dataDir');
  if (dataDir !== undefined && !local) throw new UsageError('--data-dir needs --local');
  return { program: programOptions(parsed.program), email: textFlag(flags, 'email'), local, dataDir };
}

/** One address as `evidence list` shows it: the event that decides (else the newest), and the verdict it makes. */
export interface AddressLine {
  email: string;
  kind: EvidenceEventInfo['kind'];
  at: string;
  /** `invalid` after a missing-mailbox bounce, `valid` after a delivery (where a probe proves nothing); null when the events decide nothing. */
  verdict: 'invalid' | 'valid' | null;
  source: string;
}

const VERDICT_OF: Partial<Record<EvidenceEventInfo['meaning'], AddressLine['verdict']>> = { 'missing-mailbox': 'invalid', delivered: 'valid' };

/** Each address once, from its events in any order: the newest event that decides, else the newest. */
export function addressLines(events: Iterable<EvidenceEventInfo>): AddressLine[] {
  const byAddress = new Map<string, EvidenceEventInfo[]>();
  for (const event of events) byAddress.set(event.email, [...(byAddress.get(event.email) ?? []), event]);
  return [...byAddress.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([email, held]) => {
      const newestFirst = held.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
      const shown = newestFirst.find((event) => VERDICT_OF[event.meaning] !== undefined) ?? newestFirst[0]!;
      return { email, kind: shown.kind, at: shown.at, verdict: VERDICT_OF[shown.meaning] ?? null, source: shown.source };
    });
}

/** Prints what the account's evidence says of each address (or of one, with --email). */
export async function run(options: ListOptions, io: Io): Promise<void> {
  const lines = await withTarget(options, io, async (target) => {
    if (options.email !== undefined) return addressLines(await target.of(options.email));
    const events: EvidenceEventInfo[] = [];
    for await (const event of target.all()) events.push(event);
    return addressLines(events);
  });
  for (const line of lines) {
    if (io.json) io.stdout.write(`${toSafeJson(line)}\n`);
    else io.stdout.write(`${terminalSafe(line.email)}  ${line.verdict ?? '-'}  ${line.kind} ${line.at} (${terminalSafe(line.source)})\n`);
  }
  if (lines.length === 0 && !io.quiet) io.stderr.write('no evidence\n');
}
