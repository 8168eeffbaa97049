import type { JobProgress } from '../../../../client/types.js';
import { toSafeJson } from '../../../../text/sanitize.js';
import type { Io } from '../../../output/io.js';

/**
 * `--json` waits (`bulk submit --wait`, `bulk status --watch`) as NDJSON events on stdout, for logs
 * and agents (docs/cli.md "Progress in logs"): a `progress` event per job when its progress changed,
 * at most one a second per job, and at the end a `summary` event of its own.
 */

/** A job's progress event at most this often: a poll can come every 250 ms. */
const EVENT_INTERVAL_MS = 1_000;

/** What `--json` events carry: `event` first, then the fields of the answer it reports. */
function eventLine(event: 'progress' | 'summary', fields: object): string {
  return `${toSafeJson({ event, ...fields })}\n`;
}

/**
 * A poll callback that writes a `progress` event for each job whose progress differs from its last
 * event, unless that event is less than EVENT_INTERVAL_MS old (the change then waits for a later poll).
 */
export function progressEvents(io: Pick<Io, 'stdout'>, now: () => number = Date.now): (progresses: JobProgress[]) => void {
  const last = new Map<string, { line: string; at: number }>();
  return (progresses) => {
    const at = now();
    for (const progress of progresses) {
      const line = eventLine('progress', progress);
      const previous = last.get(progress.job_id);
      if (previous !== undefined && (previous.line === line || at - previous.at < EVENT_INTERVAL_MS)) continue;
      last.set(progress.job_id, { line, at });
      io.stdout.write(line);
    }
  };
}

/** The last event of a wait: what the command printed as its result before events existed. */
export function writeSummaryEvent(io: Pick<Io, 'stdout'>, summary: object): void {
  io.stdout.write(eventLine('summary', summary));
}
