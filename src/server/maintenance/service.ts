import type { BackgroundLog } from '../background/log.js';
import { systemClock, type Clock } from './clock.js';

/**
 * One task of maintenance (docs/architecture.md "Maintenance"): what it does on each turn and how
 * often. The supervisor runs each on a timer of its own, so a slow or failing one delays no other
 * and no claim.
 */
export interface MaintenanceService {
  /** Its name in logs and in the metrics' `service` label: a fixed word per service. */
  readonly name: string;
  /** The longest wait between the end of one turn and the start of the next. */
  readonly everyMs: number;
  /** What the log says when a turn failed (the store did not answer); the next turn is at the usual time. */
  readonly failed: string;
  /** One turn at `now` (epoch ms): returns how many rows it changed. `signal` aborts when the service stops. */
  run(turn: { now: number; signal: AbortSignal }): Promise<number>;
}

/** What the supervisor reports of each turn (see metrics/). */
export interface MaintenanceMetrics {
  ran(service: string, outcome: 'ok' | 'error', rows: number, seconds: number): void;
}

/**
 * Each wait is up to this fraction shorter than `everyMs`, at random: nodes started together drift
 * apart instead of asking the store in step, and a service still runs at least every `everyMs`.
 */
export const JITTER = 0.1;

export interface ServiceRunOptions {
  log: BackgroundLog;
  metrics?: MaintenanceMetrics;
  clock?: Clock;
  /** In [0, 1), as Math.random. */
  random?: () => number;
}

/**
 * A service on its own timer: a first turn at start, then one after each jittered wait; stop()
 * cancels the wait, aborts the turn in progress and resolves once it has ended.
 */
export class PeriodicService {
  private readonly clock: Clock;
  private readonly random: () => number;
  private timer: unknown;
  private turn: Promise<void> | undefined;
  private stopping: AbortController | undefined;

  constructor(
    readonly service: MaintenanceService,
    private readonly options: ServiceRunOptions,
  ) {
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
  }

  start(): void {
    if (this.stopping) return;
    this.stopping = new AbortController();
    this.next();
  }

  async stop(): Promise<void> {
    this.stopping?.abort();
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.turn;
  }

  private next(): void {
    const signal = this.stopping!.signal;
    this.timer = undefined;
    this.turn = this.runOnce(signal).finally(() => {
      this.turn = undefined;
      if (!signal.aborted) this.timer = this.clock.setTimeout(() => this.next(), this.service.everyMs * (1 - JITTER * this.random()));
    });
  }

  private async runOnce(signal: AbortSignal): Promise<void> {
    const { service } = this;
    const startedAt = this.clock.now();
    const seconds = () => (this.clock.now() - startedAt) / 1_000;
    try {
      const rows = await service.run({ now: startedAt, signal });
      this.options.metrics?.ran(service.name, 'ok', rows, seconds());
    } catch (error) {
      this.options.log.error({ err: error, service: service.name }, service.failed);
      this.options.metrics?.ran(service.name, 'error', 0, seconds());
    }
  }
}
