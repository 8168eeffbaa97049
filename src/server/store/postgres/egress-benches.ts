import type { EgressBench } from '../../../engine/core/types.js';
import type { BenchInForce, EgressBenchStore } from '../store.js';
import type { Database } from './database.js';

/** Egress benches on PostgreSQL (EgressBenchStore), for processes on any number of machines; times on the lease clock. */
export class PostgresEgressBenches implements EgressBenchStore {
  constructor(private readonly db: Database) {}

  async bench({ egress, provider, cooldownMs, reason }: EgressBench): Promise<void> {
    const now = await this.db.leaseClock(this.db.sql);
    await this.db.sql.run(
      `INSERT INTO egress_benches (egress, provider, benched_until, reason) VALUES ($1, $2, $3, $4)
       ON CONFLICT (egress, provider) DO UPDATE SET benched_until = GREATEST(egress_benches.benched_until, EXCLUDED.benched_until), reason = EXCLUDED.reason`,
      [egress, provider, now + cooldownMs, reason],
    );
  }

  async benched(provider: string): Promise<string[]> {
    const now = await this.db.leaseClock(this.db.sql);
    const rows = await this.db.sql.rows<{ egress: string }>('SELECT egress FROM egress_benches WHERE provider = $1 AND benched_until > $2 ORDER BY egress', [
      provider,
      now,
    ]);
    return rows.map((row) => row.egress);
  }

  async inForce(): Promise<BenchInForce[]> {
    const now = await this.db.leaseClock(this.db.sql);
    return this.db.sql.rows<BenchInForce>(
      'SELECT egress, provider, benched_until AS "until", reason FROM egress_benches WHERE benched_until > $1 ORDER BY provider, egress',
      [now],
    );
  }

  async expire(): Promise<number> {
    const now = await this.db.leaseClock(this.db.sql);
    return this.db.sql.run('DELETE FROM egress_benches WHERE benched_until <= $1', [now]);
  }
}
