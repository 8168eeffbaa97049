/** Non-negative counts by key, holding no entry for zero (so a map of busy keys does not grow). */
export class Counts {
  private readonly counts = new Map<string, number>();

  of(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  add(key: string, delta: number): void {
    const count = this.of(key) + delta;
    if (count > 0) this.counts.set(key, count);
    else this.counts.delete(key);
  }
}
