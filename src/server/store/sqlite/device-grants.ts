import { pollGrant, type DevicePollSteps } from '../flows/device-grants.js';
import { runNow } from '../flows/flow.js';
import type { DeviceGrant, DevicePoll, NewDeviceGrant } from '../device-grant-model.js';
import { EXPIRED_GRANTS_KEPT_MS, toDeviceGrant, type DeviceGrantRow } from '../rows/device-grants.js';
import { scopesColumn } from '../rows/tokens.js';
import type { Connection } from './database.js';
import type { SqliteTokens } from './tokens.js';

/** Devices' requests to log in (RFC 8628), kept as hashes of their codes. */
export class SqliteDeviceGrants {
  private readonly sql;
  private readonly steps: DevicePollSteps;

  constructor(
    private readonly connection: Connection,
    tokens: SqliteTokens,
  ) {
    const prepare = connection.prepare.bind(connection);
    this.sql = {
      prune: prepare('DELETE FROM device_grants WHERE expires_at < ?'),
      insert: prepare(
        `INSERT INTO device_grants (device_code_hash, user_code_hash, client_name, scopes, created_at, expires_at, interval_seconds)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      ),
      byUserCode: prepare<DeviceGrantRow>('SELECT * FROM device_grants WHERE user_code_hash = ?'),
      byDeviceCode: prepare<DeviceGrantRow>('SELECT * FROM device_grants WHERE device_code_hash = ?'),
      decide: prepare(
        `UPDATE device_grants SET status = ?, user_id = ?, decided_at = ?
         WHERE user_code_hash = ? AND status = 'pending' AND expires_at > ?`,
      ),
      markPolled: prepare('UPDATE device_grants SET last_polled_at = ?, interval_seconds = ?, status = ? WHERE device_code_hash = ?'),
    };
    this.steps = {
      // The IMMEDIATE transaction holds the whole file: two polls at once run one after the other.
      lockGrant: (hash) => this.sql.byDeviceCode.get(hash),
      markPolled: (hash, polledAt, interval, status) => void this.sql.markPolled.run(polledAt, interval, status, hash),
      insertToken: (userId, name, tokenHash, grant) => tokens.createApiToken(userId, name, tokenHash, grant),
    };
  }

  create(grant: NewDeviceGrant): boolean {
    const now = this.connection.now().getTime();
    return this.connection.db
      .transaction(() => {
        this.sql.prune.run(new Date(now - EXPIRED_GRANTS_KEPT_MS).toISOString());
        const { deviceCodeHash, userCodeHash, clientName, intervalSeconds } = grant;
        const expiresAt = new Date(now + grant.lifetimeMs).toISOString();
        const args = [deviceCodeHash, userCodeHash, clientName, scopesColumn(grant.grant), new Date(now).toISOString(), expiresAt, intervalSeconds];
        return this.sql.insert.run(...args).changes > 0;
      })
      .immediate();
  }

  findByUserCode(userCodeHash: string): DeviceGrant | undefined {
    const row = this.sql.byUserCode.get(userCodeHash);
    return row && toDeviceGrant(row, this.connection.now());
  }

  decide(userCodeHash: string, userId: number, approve: boolean): boolean {
    const now = this.connection.timestamp();
    return this.sql.decide.run(approve ? 'approved' : 'denied', userId, now, userCodeHash, now).changes > 0;
  }

  poll(deviceCodeHash: string, tokenHash: string): DevicePoll {
    return this.connection.db.transaction(() => runNow(pollGrant(this.steps, deviceCodeHash, tokenHash, this.connection.now()))).immediate();
  }
}
