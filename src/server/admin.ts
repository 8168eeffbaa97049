/**
 * What `mailverify admin` needs of the service besides its store (which it opens through
 * store/open/open-store.ts): the password and API-token hashing the service checks against, and
 * the defaults a new account gets. One door, so that the CLI never reaches into the service's parts.
 */
export { hashPassword, MIN_PASSWORD_LENGTH } from './auth/passwords.js';
export { generateApiToken, hashApiToken } from './auth/api-tokens.js';
export { DEFAULT_RATE_LIMIT, DEFAULT_RATE_WINDOW_SECONDS } from './store/store.js';
