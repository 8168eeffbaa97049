import { readFileSync } from 'node:fs';

/**
 * This package's version, for `--version`, the User-Agent and the OpenAPI document. Read from our
 * own package.json (one level up from both src/ and dist/), not from `npm_package_version`, which
 * names whatever package's script happens to run us.
 */
export const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
