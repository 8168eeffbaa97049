import type { DevicePoll, DeviceGrantStatus } from '../device-grant-model.js';
import type { ApiToken, TokenGrant } from '../model.js';
import { toDeviceGrant, type DeviceGrantRow } from '../rows/device-grants.js';
import { step, type Awaitable, type Flow } from './flow.js';

/** RFC 8628 §3.5: each `slow_down` makes the interval this much longer, for that poll and every later one. */
const SLOW_DOWN_STEP_SECONDS = 5;

/** The statements of one poll, inside one transaction. */
export interface DevicePollSteps {
  /** The request with this device code, held until the transaction ends (two polls at once: one after the other). */
  lockGrant(deviceCodeHash: string): Awaitable<DeviceGrantRow | undefined>;
  markPolled(deviceCodeHash: string, polledAt: string, intervalSeconds: number, status: DeviceGrantStatus): Awaitable<void>;
  insertToken(userId: number, name: string, tokenHash: string, grant: TokenGrant): Awaitable<ApiToken>;
}

/**
 * One poll of a device code (docs/api.md "Logging in from a device"). A final state answers however
 * soon it is asked; only a pending request is held to its interval. An approved one becomes an API
 * token of the account that approved it, in the transaction that marks the code used, so the token
 * is handed out once and a second exchange finds no code.
 */
export function* pollGrant(steps: DevicePollSteps, deviceCodeHash: string, tokenHash: string, now: Date): Flow<DevicePoll> {
  const row = yield* step(steps.lockGrant(deviceCodeHash));
  if (row === undefined || row.status === 'issued') return { outcome: 'unknown' };
  const grant = toDeviceGrant(row, now);
  if (!grant.live) return { outcome: 'expired' };
  const polledAt = now.toISOString();
  if (row.status === 'denied') return { outcome: 'denied' };
  if (row.status === 'approved') {
    yield* step(steps.markPolled(deviceCodeHash, polledAt, row.interval_seconds, 'issued'));
    const token = yield* step(steps.insertToken(row.user_id!, row.client_name, tokenHash, grant.grant));
    return { outcome: 'issued', token };
  }
  const tooSoon = row.last_polled_at !== null && now.getTime() - Date.parse(row.last_polled_at) < row.interval_seconds * 1_000;
  const intervalSeconds = tooSoon ? row.interval_seconds + SLOW_DOWN_STEP_SECONDS : row.interval_seconds;
  yield* step(steps.markPolled(deviceCodeHash, polledAt, intervalSeconds, 'pending'));
  return tooSoon ? { outcome: 'slow_down', intervalSeconds } : { outcome: 'pending' };
}
