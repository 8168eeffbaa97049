import { duration } from '../../../output/format.js';
import { waitNotice, type Io } from '../../../output/io.js';

/** Where one or more jobs stand, summed: what a progress display shows. */
export interface Tally {
  processed: number;
  total: number;
  /** Addresses waiting for their next try (a temporary answer), and when the earliest is due (ISO). */
  waiting: number;
  nextAttemptAt: string | null;
}

/** A job's progress as the service or the local store says it: `waiting` and `nextAttemptAt` only while some wait. */
interface JobState {
  processed: number;
  total: number;
  waiting?: number;
  nextAttemptAt?: string | null;
}

export function tally(jobs: readonly JobState[]): Tally {
  const sum: Tally = { processed: 0, total: 0, waiting: 0, nextAttemptAt: null };
  for (const job of jobs) {
    sum.processed += job.processed;
    sum.total += job.total;
    sum.waiting += job.waiting ?? 0;
    if (job.nextAttemptAt && (sum.nextAttemptAt === null || job.nextAttemptAt < sum.nextAttemptAt)) sum.nextAttemptAt = job.nextAttemptAt;
  }
  return sum;
}

/** "12 waiting for their next try (greylisting), the next at 14:05": a wait that is no hang; empty when none waits. */
export function waitingNote({ waiting, nextAttemptAt }: Pick<Tally, 'waiting' | 'nextAttemptAt'>): string {
  if (waiting === 0 || nextAttemptAt === null) return '';
  const at = new Date(nextAttemptAt).toTimeString().slice(0, 5);
  return `${waiting.toLocaleString('en-US')} waiting for their next try (greylisting), the next at ${at}`;
}

export interface Progress {
  update(tally: Tally): void;
  /** A message about the wait (an unreachable service, ...), printed without breaking the display. */
  note(message: string): void;
  stop(): void;
}

/** "54,000/120,000". */
export function fraction(processed: number, total: number): string {
  return `${processed.toLocaleString('en-US')}/${total.toLocaleString('en-US')}`;
}

const percentOf = (processed: number, total: number) => (total === 0 ? 100 : Math.floor((100 * processed) / total));

/** A wait off a terminal says where it stands this often, changed or not: a log that goes quiet looks hung. */
const LINE_INTERVAL_MS = 10_000;

/** `write` for the first value at once, then for the first value each LINE_INTERVAL_MS later: a plain line every 10 s. */
export function everyInterval<T>(write: (value: T) => void, now: () => number = Date.now): (value: T) => void {
  let lastAt: number | undefined;
  return (value) => {
    const at = now();
    if (lastAt !== undefined && at - lastAt < LINE_INTERVAL_MS) return;
    lastAt = at;
    write(value);
  };
}

/**
 * Progress as plain lines on stderr, where no spinner may be drawn (a log, CI): the first answer
 * at once, then one every LINE_INTERVAL_MS, so that a wait is never silent. `lines: false` (a
 * caller that reports the answers itself) prints only notes.
 */
function lineProgress(io: Io, label: string, lines: boolean, ctrlC: string): Progress {
  let first = true;
  const line = everyInterval((text: string) => {
    waitNotice(io, first ? `${text}; ${ctrlC}` : text);
    first = false;
  });
  return {
    update(state) {
      const { processed, total } = state;
      const waiting = waitingNote(state);
      if (lines) line(`${label}: ${fraction(processed, total)} (${percentOf(processed, total)}%)${waiting ? `; ${waiting}` : ''}`);
    },
    note: (message) => waitNotice(io, message),
    stop() {},
  };
}
/** ora's "dots". */
const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** The rate seen since the first update and the remaining time at it; unknown until something moved. */
function eta(first: { processed: number; at: number }, processed: number, total: number, now: number): string {
  const rate = (processed - first.processed) / (now - first.at);
  if (!(rate > 0)) return 'ETA …';
  return `${Math.round(rate * 1_000).toLocaleString('en-US')}/s, ETA ${duration((total - processed) / rate)}`;
}

/**
 * A spinner on stderr with percent, processed/total and ETA. Only where `io.interactive` allows
 * (a TTY, no --json, no --quiet), and ora is loaded only then; elsewhere occasional lines.
 */
export async function startProgress(io: Io, label: string, options: { lines: boolean; ctrlC?: string }): Promise<Progress> {
  const ctrlC = options.ctrlC ?? 'Ctrl-C stops waiting, the service goes on';
  // A terminal that reports a width of 0 (some pseudo-terminals do) sends ora into an endless
  // loop of clearing lines; such a terminal gets no spinner.
  if (!io.interactive || (io.stderr as { columns?: number }).columns === 0) return lineProgress(io, label, options.lines, ctrlC);
  const { default: ora } = await import('ora');
  // `io` has decided about the terminal and colour already, so the frames come painted with its
  // colours and ora's own decisions are off (its chalk ignores NO_COLOR).
  // discardStdin off: the terminal's own Ctrl-C must keep reaching our SIGINT handler.
  const spinner = ora({
    text: `${label}…`,
    stream: io.stderr,
    isEnabled: true,
    spinner: { interval: 80, frames: SPINNER_FRAMES.map((frame) => io.color.cyan(frame)) },
    color: false,
    discardStdin: false,
  }).start();
  let first: { processed: number; at: number } | undefined;
  return {
    update(state) {
      const { processed, total } = state;
      const now = Date.now();
      first ??= { processed, at: now };
      const waiting = waitingNote(state);
      spinner.text = `${label}: ${percentOf(processed, total)}% ${fraction(processed, total)}, ${waiting || eta(first, processed, total, now)}`;
    },
    note(message) {
      spinner.clear();
      waitNotice(io, message);
      spinner.render();
    },
    stop() {
      spinner.stop();
    },
  };
}
