/**
 * Generated contact lists for the CSV benchmark: 10 columns, about 130 bytes a row, the address in
 * the 4th column under an `email` header. Row r holds address number (r × STRIDE) mod distinct, so
 * a file of k × distinct rows holds every address k times in a scattered order, a later copy with
 * its domain in capitals (the de-duplication ignores case). One address in INVALID_EVERY fails the
 * syntax pre-check. Files are kept in bench/.work and reused while their name (sizes and
 * GENERATOR_VERSION) matches.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { WORK_DIR, ensureWorkDir } from '../lib/work-dir.js';

const GENERATOR_VERSION = 2;
/** Coprime with every distinct count used (they are products of 2s and 5s). */
const STRIDE = 7_919;
const INVALID_EVERY = 200;
const ROWS_PER_WRITE = 5_000;

const HEADER = 'id,first_name,last_name,email,company,city,country,phone,signup_date,score';
const FIRST = ['alex', 'maria', 'jonas', 'li', 'samira', 'noor', 'ivan', 'zoe', 'kofi', 'elena', 'tomas', 'aiko'];
const LAST = ['smith', 'garcia', 'müller', 'chen', 'okafor', 'rossi', 'novak', 'dubois', 'silva', 'kowalski'];
const CITIES = ['Lisbon', 'Nairobi', 'Osaka', 'Toronto', 'Kraków', 'Austin', 'Lyon', 'Pune', '"Rio de Janeiro"'];
const COUNTRIES = ['PT', 'KE', 'JP', 'CA', 'PL', 'US', 'FR', 'IN', 'BR'];

function address(id, copy) {
  const first = FIRST[id % FIRST.length];
  const last = LAST[(id >> 3) % LAST.length];
  if (id % INVALID_EVERY === 0) return `${first}..${last}${id}@company${id % 20_000}.com`;
  const domain = `company${id % 20_000}.com`;
  return `${first}.${last}${id}@${copy % 2 === 1 ? domain.toUpperCase() : domain}`;
}

function line(rowIndex, distinct) {
  const id = (rowIndex * STRIDE) % distinct;
  const copy = Math.floor(rowIndex / distinct);
  const first = FIRST[id % FIRST.length];
  const last = LAST[(id >> 3) % LAST.length];
  const day = String(1 + (rowIndex % 28)).padStart(2, '0');
  const month = String(1 + (rowIndex % 12)).padStart(2, '0');
  return [
    rowIndex + 1,
    first,
    last,
    address(id, copy),
    `"${last} & Partners Consulting, Ltd"`,
    CITIES[rowIndex % CITIES.length],
    COUNTRIES[rowIndex % COUNTRIES.length],
    `+1-555-${String(rowIndex % 10_000_000).padStart(7, '0')}`,
    `20${20 + (rowIndex % 6)}-${month}-${day}`,
    (rowIndex % 1000) / 10,
  ].join(',');
}

/**
 * The path of a list of `rows` rows over `distinct` addresses, written first if missing.
 * @returns {Promise<string>}
 */
export async function generatedList(rows, distinct) {
  await ensureWorkDir();
  const path = fileURLToPath(new URL(`list-v${GENERATOR_VERSION}-${rows}-rows-${distinct}-distinct.csv`, WORK_DIR));
  if (existsSync(path)) return path;
  const partial = `${path}.partial`;
  const out = createWriteStream(partial);
  out.write(`${HEADER}\n`);
  for (let start = 0; start < rows; start += ROWS_PER_WRITE) {
    const end = Math.min(rows, start + ROWS_PER_WRITE);
    const chunk = [];
    for (let r = start; r < end; r++) chunk.push(line(r, distinct));
    if (!out.write(`${chunk.join('\n')}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  await rename(partial, path);
  return path;
}

/** Every distinct address of such a list, as first written (for the merge-back's results). */
export function distinctAddresses(distinct) {
  return Array.from({ length: distinct }, (_, id) => address(id, 0));
}
