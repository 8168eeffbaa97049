import type { ApiClient } from '../../../../client/api-client.js';
import type { JobProgress } from '../../../../client/types.js';
import type { ListSource } from '../../../../csv/source.js';
import { InterruptedError } from '../../../output/errors.js';
import { enforceFailOn, NO_FAIL_ON, type FailOn } from '../../../output/fail-on.js';
import { counted } from '../../../output/format.js';
import type { Session } from '../../../session/session.js';
import { fetchResults, jobsNamed, requireCompleted, waitForJobs, type Interruption } from './jobs.js';
import { cannotVerify, resumeCommand, unverifiableOutcome, writeOutput, type OutputPlan } from './output.js';

export interface Delivery {
  session: Session;
  client: ApiClient;
  interruption: Interruption;
  jobIds: string[];
  plan: OutputPlan;
  source?: ListSource;
  /** Only some of the list's jobs are named: rows of the others are expected to have no result. */
  partial?: boolean;
  /** Refuse (exit 2) a merge into a list with rows in none of the jobs. */
  strict?: boolean;
  wait: boolean;
  /** The gate checked after the output is written and every warning said. */
  failOn?: FailOn;
  /** Called with every answer while waiting, instead of progress lines on stderr (`--json` events). */
  onPoll?: (progresses: JobProgress[]) => void;
  /** Called once the results are written, before what they hold can end the command with an error. */
  onWritten?: () => void;
}

/** "lines 4, 9 and 12", "lines 4, 9, 12, 20, 31 and 7 more". */
function linesNamed(lines: number[], count: number): string {
  const shown = lines.join(', ');
  if (count > lines.length) return `lines ${shown} and ${count - lines.length} more`;
  return lines.length === 1 ? `line ${shown}` : `lines ${shown.replace(/, (\d+)$/, ' and $1')}`;
}

/**
 * Waits for the jobs (with --wait) or insists they are done (exit 8), then writes their results,
 * merged into the source list when there is one. Ctrl-C on the way is exit 130 with the command
 * that picks up where this one stopped.
 */
export async function deliverResults(delivery: Delivery): Promise<void> {
  const { session, client, interruption, jobIds, plan, source, partial, strict, wait, onPoll, failOn = NO_FAIL_ON } = delivery;
  const { io } = session;
  const resume = resumeCommand(jobIds, plan.flags, failOn);
  const waiting = { io, signal: interruption.signal, outageMs: plan.outageMs, resume };
  const delivered = await interruption.during(
    async () => {
      if (jobIds.length > 0 && wait) await waitForJobs(client, jobIds, { ...waiting, onPoll, lines: onPoll === undefined });
      else if (jobIds.length > 0) await requireCompleted(client, jobIds, resume);
      const results = await fetchResults(client, jobIds, wait ? waiting : undefined);
      return {
        results,
        written: await writeOutput(plan, io, { results, source, signal: interruption.signal, strict: strict && source !== undefined && !partial }),
      };
    },
    () => new InterruptedError(`interrupted; the service goes on with ${jobsNamed(jobIds)}`, `resume with: ${resume}`),
  );
  const { results, written: summary } = delivered;
  delivery.onWritten?.();
  if (plan.path !== undefined) session.notice(`wrote ${counted(summary.written, plan.format === 'csv' ? 'row' : 'result')} to ${plan.path}`);
  if (summary.unverifiable > 0) throw cannotVerify(summary.unverifiable, results, unverifiableOutcome(plan, summary));
  if (source && summary.unmatched > 0) {
    const kept = plan.format === 'csv' && plan.only === undefined ? 'kept with empty verdict columns' : 'left out';
    const message = `${counted(summary.unmatched, 'row')} of ${source.label} (${linesNamed(summary.unmatchedLines, summary.unmatched)}) ${summary.unmatched === 1 ? 'is' : 'are'} in none of the jobs: ${kept}`;
    if (partial) session.notice(message);
    else session.warn(message);
  }
  enforceFailOn(results.values(), failOn);
}
