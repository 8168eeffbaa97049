import type { EgressBench } from '../../../engine/core/types.js';
import type { BenchInForce } from '../store.js';
import type { Connection } from './database.js';

/** Egress benches on SQLite (EgressBenchStore), for the processes sharing one data dir. */
export class SqliteEgressBenches {
  private readonly sql;

  constructor(private readonly connection: Connection) {
    const prepare = connection.prepare.bind(connection);
    this.sql = {
      prune: prepare('DELETE FROM egress_benches WHERE benched_until <= ?'),
      bench: prepare(
        `INSERT INTO egress_benches (egress, provider, benched_until, reason) VALUES (?, ?, ?, ?)
         ON CONFLICT (egress, provider) DO UPDATE SET benched_until = MAX(benched_until, excluded.benched_until), reason = excluded.reason`,
      ),
      benched: prepare<{ egress: string }>('SELECT egress FROM egress_benches WHERE provider = ? AND benched_until > ? ORDER BY egress'),
      inForce: prepare<BenchInForce>(
        'SELECT egress, provider, benched_until AS "until", reason FROM egress_benches WHERE benched_until > ? ORDER BY provider, egress',
      ),
    };
  }

  private nowMs(): number {
    return this.connection.now().getTime();
  }

  bench({ egress, provider, cooldownMs, reason }: EgressBench): void {
    this.sql.bench.run(egress, provider, this.nowMs() + cooldownMs, reason);
  }

  benched(provider: string): string[] {
    return this.sql.benched.all(provider, this.nowMs()).map((row) => row.egress);
  }

  inForce(): BenchInForce[] {
    return this.sql.inForce.all(this.nowMs());
  }

  expire(): number {
    return this.sql.prune.run(this.nowMs()).changes;
  }
}
