import type { Egress } from './egress-pool.js';
import { NetworkStatusBoard, type NetworkStatus } from './network-status.js';
import type { Port25Watch } from './port25.js';

type Port25Status = NetworkStatus['port25'];

/**
 * The node's port 25 made of its egresses' (docs/architecture.md "Egress"): with one egress, that
 * egress's state as it is; with several, `blocked` only when every egress is, `suspect` while any
 * is suspect or blocked (the others carry the work; the reason names each by its key), else `open`
 * once any got through, else `unknown`.
 */
export function poolPort25(egresses: readonly { key: string; status: Port25Status }[]): Port25Status {
  if (egresses.length === 1) return egresses[0]!.status;
  const troubled = egresses.filter(({ status }) => status.state === 'suspect' || status.state === 'blocked');
  const reason = troubled.map(({ key, status }) => `egress ${key}: ${status.state}${status.reason ? ` (${status.reason})` : ''}`).join('; ');
  if (egresses.every(({ status }) => status.state === 'blocked')) return { state: 'blocked', reason };
  if (troubled.length > 0) return { state: 'suspect', reason };
  return { state: egresses.some(({ status }) => status.state === 'open') ? 'open' : 'unknown' };
}

/** One Port25Watch per egress, each on a board of its own, and the node's board told what they make together. */
export class Port25Pool {
  private readonly watches = new Map<string, { watch: Port25Watch; board: NetworkStatusBoard }>();

  constructor(
    egresses: readonly Egress[],
    watchOf: (egress: Egress, board: NetworkStatusBoard) => Port25Watch,
    private readonly node: NetworkStatusBoard,
  ) {
    for (const egress of egresses) {
      const board = new NetworkStatusBoard();
      this.watches.set(egress.key, { watch: watchOf(egress, board), board });
      board.onChange(() => this.publish());
    }
  }

  /** The watch of `egress` (one of the pool's). */
  of(egress: Egress): Port25Watch {
    return this.watches.get(egress.key)!.watch;
  }

  /** Whether the port is confirmed blocked for `egress`: its sessions would fail at once, so routes go elsewhere. */
  blocked(egress: Egress): boolean {
    return this.of(egress).state === 'blocked';
  }

  /** Every egress's confirmation now (the start-up check), together. */
  async confirmAll(): Promise<void> {
    await Promise.all([...this.watches.values()].map(({ watch }) => watch.confirm()));
  }

  private publish(): void {
    this.node.set('port25', poolPort25([...this.watches].map(([key, { board }]) => ({ key, status: board.status().port25 }))));
  }
}
