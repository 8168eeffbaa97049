import type { EgressStanding } from '../../engine/index.js';
import type { EngineOptions } from '../../engine/core/types.js';
import type { Metrics } from '../metrics/metrics.js';

interface Logger {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/** What `serve` and `worker` take of the standing watch. */
export interface StandingWatchOptions {
  /** How often the egresses' standing is checked (`--standing-interval`), the first time at start; 0 or none: never. */
  standingIntervalMs?: number;
}

/** How often `serve` and `worker` look at their egresses' standing again by default (`--standing-interval`). */
export const DEFAULT_STANDING_INTERVAL_MS = 30 * 60_000;

export interface StandingWatch {
  /** The check made at start; what `serve` and `worker` warn about on stderr. */
  readonly first: Promise<EgressStanding[]>;
  /** The last check's findings (empty before the first is done): what the metrics show. */
  latest(): readonly EgressStanding[];
  stop(): void;
}

/** The findings that are problems, as `<check>: <detail>` sentences that say what to fix. */
export function standingProblems(standings: readonly EgressStanding[]): string[] {
  return standings.flatMap((egress) =>
    egress.findings.filter((finding) => finding.status === 'problem').map((finding) => `${finding.check}: ${finding.detail}`),
  );
}

/**
 * Our egresses' standing (docs/architecture.md "Egress"), checked at start and every `intervalMs`
 * (`--standing-interval`; 0 turns the watch off and this is not called). A problem is logged when it appears and when it is gone, not at every check.
 * A check that fails (it never should: each lookup answers) is logged and the last findings kept.
 */
function watchStanding(check: () => Promise<EgressStanding[]>, { intervalMs, log }: { intervalMs: number; log: Logger }): StandingWatch {
  let latest: readonly EgressStanding[] = [];
  let known = new Set<string>();
  let stopped = false;
  const run = async (): Promise<EgressStanding[]> => {
    const standings = await check();
    if (stopped) return standings;
    latest = standings;
    const now = new Set(standingProblems(standings));
    for (const problem of now) if (!known.has(problem)) log.warn({ standing: problem }, `egress standing: ${problem}`);
    for (const problem of known) if (!now.has(problem)) log.info({ standing: problem }, `egress standing: no longer a problem: ${problem}`);
    known = now;
    return standings;
  };
  const logFailure = (error: unknown) => log.warn({ err: error }, 'egress standing: the check failed');
  const first = run();
  first.catch(logFailure);
  const timer = setInterval(() => void run().catch(logFailure), intervalMs);
  timer.unref();
  return {
    first,
    latest: () => latest,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/**
 * The watch of a `serve` or `worker` process over the egresses of its engine options, its findings
 * on the metrics listener; none when `intervalMs` is 0 or not given (the CLI's default is
 * DEFAULT_STANDING_INTERVAL_MS).
 */
export function startStandingWatch(
  engine: Partial<EngineOptions>,
  intervalMs: number | undefined,
  { log, metrics }: { log: Logger; metrics?: Pick<Metrics, 'watchEgressStanding'> },
): StandingWatch | undefined {
  if (intervalMs === undefined || intervalMs === 0) return undefined;
  const check = async () => {
    const { checkStanding, resolveEngineOptions } = await import('../../engine/index.js');
    return checkStanding(resolveEngineOptions(engine));
  };
  const watch = watchStanding(check, { intervalMs, log });
  metrics?.watchEgressStanding(watch.latest);
  return watch;
}
