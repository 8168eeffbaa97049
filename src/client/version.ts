import { readFileSync } from 'node:fs';

/**
 * This package's version, for `--version` and the User-Agent. Read from our own package.json
 * (two levels up from both src/client and dist/client), not from `npm_package_version`, which
 * names whatever package's script happens to run us.
 */
export const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
