import type { Io } from '../../io.js';

export interface Progress {
  update(processed: number, total: number): void;
  stop(): void;
}

/** "54,000/120,000". */
export function fraction(processed: number, total: number): string {
  return `${processed.toLocaleString('en-US')}/${total.toLocaleString('en-US')}`;
}

const NO_PROGRESS: Progress = { update() {}, stop() {} };
/** ora's "dots". */
const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

function duration(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

/** Remaining time at the rate seen since the first update; unknown until something moved. */
function eta(first: { processed: number; at: number }, processed: number, total: number, now: number): string {
  const rate = (processed - first.processed) / (now - first.at);
  if (!(rate > 0)) return 'ETA …';
  return `ETA ${duration((total - processed) / rate)}`;
}

/**
 * A spinner on stderr with percent, processed/total and ETA. Only where `io.interactive` allows
 * (a TTY, no --json, no --quiet); elsewhere it draws nothing. ora is loaded only then.
 */
export async function startProgress(io: Io, label: string): Promise<Progress> {
  // A terminal that reports a width of 0 (some pseudo-terminals do) sends ora into an endless
  // loop of clearing lines; such a terminal gets no spinner.
  if (!io.interactive || (io.stderr as { columns?: number }).columns === 0) return NO_PROGRESS;
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
    update(processed, total) {
      const now = Date.now();
      first ??= { processed, at: now };
      const percent = total === 0 ? 100 : Math.floor((100 * processed) / total);
      spinner.text = `${label}: ${percent}% ${fraction(processed, total)}, ${eta(first, processed, total, now)}`;
    },
    stop() {
      spinner.stop();
    },
  };
}
