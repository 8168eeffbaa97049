/**
 * The pause a provider rule asks for between sessions at one host (`pauseMs`): a session starts
 * that long after the previous one at the host started or ended, whichever was later, so that
 * sessions waiting together are spread out too. Only hosts with a pause are remembered.
 */
export class HostPauses {
  private readonly lastAt = new Map<string, number>();

  /** Waits until a session may start at `address`; called holding the host's slot. */
  async before(address: string, pauseMs: number): Promise<void> {
    if (pauseMs === 0) return;
    const now = Date.now();
    const start = Math.max(now, (this.lastAt.get(address) ?? -Infinity) + pauseMs);
    // Claimed before waiting: the next session at the host counts from this one's start.
    this.lastAt.set(address, start);
    if (start > now) await new Promise((resolve) => setTimeout(resolve, start - now));
  }

  /** A session at `address` ended: the next one waits `pauseMs` from now. */
  after(address: string, pauseMs: number): void {
    if (pauseMs > 0) this.lastAt.set(address, Math.max(Date.now(), this.lastAt.get(address) ?? 0));
  }
}
