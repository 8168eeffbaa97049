import { pollGrant, type DevicePollSteps } from '../flows/device-grants.js';
import { runAwaiting } from '../flows/flow.js';
import type { DeviceGrant, DevicePoll, NewDeviceGrant } from '../device-grant-model.js';
import { EXPIRED_GRANTS_KEPT_MS, toDeviceGrant, type DeviceGrantRow } from '../rows/device-grants.js';
import { scopesColumn } from '../rows/tokens.js';
import type { Database, Statements } from './database.js';
import type { PostgresTokens } from './tokens.js';

/** Devices' requests to log in (RFC 8628), kept as hashes of their codes. */
export class PostgresDeviceGrants {
  constructor(
    private readonly db: Database,
    private readonly tokens: PostgresTokens,
  ) {}

  async create(grant: NewDeviceGrant): Promise<boolean> {
    const now = this.db.now().getTime();
    await this.db.sql.run('DELETE FROM device_grants WHERE expires_at < $1', [new Date(now - EXPIRED_GRANTS_KEPT_MS).toISOString()]);
    const { deviceCodeHash, userCodeHash, clientName, intervalSeconds } = grant;
    const inserted = await this.db.sql.run(
      `INSERT INTO device_grants (device_code_hash, user_code_hash, client_name, scopes, created_at, expires_at, interval_seconds)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
      [
        deviceCodeHash,
        userCodeHash,
        clientName,
        scopesColumn(grant.grant),
        new Date(now).toISOString(),
        new Date(now + grant.lifetimeMs).toISOString(),
        intervalSeconds,
      ],
    );
    return inserted > 0;
  }

  async findByUserCode(userCodeHash: string): Promise<DeviceGrant | undefined> {
    const row = await this.db.sql.row<DeviceGrantRow>('SELECT * FROM device_grants WHERE user_code_hash = $1', [userCodeHash]);
    return row && toDeviceGrant(row, this.db.now());
  }

  async decide(userCodeHash: string, userId: number, approve: boolean): Promise<boolean> {
    const now = this.db.timestamp();
    const decided = await this.db.sql.run(
      `UPDATE device_grants SET status = $1, user_id = $2, decided_at = $3
       WHERE user_code_hash = $4 AND status = 'pending' AND expires_at > $3`,
      [approve ? 'approved' : 'denied', userId, now, userCodeHash],
    );
    return decided > 0;
  }

  async poll(deviceCodeHash: string, tokenHash: string): Promise<DevicePoll> {
    return this.db.transaction((sql) => runAwaiting(pollGrant(this.steps(sql), deviceCodeHash, tokenHash, this.db.now())));
  }

  private steps(sql: Statements): DevicePollSteps {
    return {
      lockGrant: (hash) => sql.row<DeviceGrantRow>('SELECT * FROM device_grants WHERE device_code_hash = $1 FOR UPDATE', [hash]),
      markPolled: async (hash, polledAt, interval, status) =>
        void (await sql.run('UPDATE device_grants SET last_polled_at = $1, interval_seconds = $2, status = $3 WHERE device_code_hash = $4', [
          polledAt,
          interval,
          status,
          hash,
        ])),
      insertToken: (userId, name, tokenHash, grant) => this.tokens.insertToken(sql, userId, name, tokenHash, grant),
    };
  }
}
