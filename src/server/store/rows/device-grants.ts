import { API_SCOPES } from '../../../wire/contract.js';
import type { DeviceGrant, DeviceGrantStatus } from '../device-grant-model.js';

/** A device's request as both schemas hold it (migration 024), and its mapping to the Store's record. */

export interface DeviceGrantRow {
  device_code_hash: string;
  user_code_hash: string;
  client_name: string;
  /** Space-separated, as api_tokens.scopes. */
  scopes: string;
  created_at: string;
  expires_at: string;
  interval_seconds: number;
  last_polled_at: string | null;
  status: DeviceGrantStatus;
  user_id: number | null;
  decided_at: string | null;
}

/** Requests expired longer ago than this are deleted when a new one is made: until then a late poll still hears `expired_token`. */
export const EXPIRED_GRANTS_KEPT_MS = 3_600_000;

export const toDeviceGrant = (row: DeviceGrantRow, now: Date): DeviceGrant => ({
  clientName: row.client_name,
  grant: { scopes: API_SCOPES.filter((scope) => row.scopes.split(' ').includes(scope)), expiresAt: null },
  status: row.status,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  live: Date.parse(row.expires_at) > now.getTime(),
});
