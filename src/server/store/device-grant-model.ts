import type { ApiToken, TokenGrant } from './model.js';

/**
 * The records of the device authorization grant (docs/api.md "Logging in from a device"; RFC 8628):
 * a device asks, someone signed in approves or denies on the dashboard, the device polls and is
 * handed an API token once.
 */

/** Where a device's request stands: `issued` once its token was handed out (a code is used once). */
export type DeviceGrantStatus = 'pending' | 'approved' | 'denied' | 'issued';

/** A new request: only the hashes of its codes are kept. */
export interface NewDeviceGrant {
  deviceCodeHash: string;
  userCodeHash: string;
  /** The name the device gave itself; the token it gets is named so. */
  clientName: string;
  grant: TokenGrant;
  /** How long it may be approved, from now. */
  lifetimeMs: number;
  intervalSeconds: number;
}

/** A request as the dashboard shows it before someone decides. */
export interface DeviceGrant {
  clientName: string;
  grant: TokenGrant;
  status: DeviceGrantStatus;
  createdAt: string;
  expiresAt: string;
  /** False once `expiresAt` has passed (by the store's clock). */
  live: boolean;
}

/**
 * The answer to one poll (RFC 8628 §3.5): still `pending`, polled sooner than its interval
 * (`slow_down`, the interval now 5 s longer), `denied`, `expired`, `unknown` (no such code, or
 * its token handed out already), or the token, made in the same transaction that marks the code
 * used, so that it is handed out once.
 */
export type DevicePoll =
  { outcome: 'pending' | 'denied' | 'expired' | 'unknown' } | { outcome: 'slow_down'; intervalSeconds: number } | { outcome: 'issued'; token: ApiToken };
