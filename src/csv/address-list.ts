import { NO_ADDRESS, precheckFailure } from './precheck.js';
import { addressKey } from './result-index.js';
import { addressOf, forEachRow, type ListSource } from './source.js';

/** A pre-check failure shown to the user: where, what and why. */
export interface RejectedRow {
  /** 1-based data row (header not counted). */
  row: number;
  address: string;
  reason: string;
}

/** What a list holds once read: the distinct addresses to send and the counts of what was not. */
export interface AddressList {
  /** Distinct addresses as first written, in first-seen order. */
  addresses: string[];
  /** Data rows read (header and blank rows not counted) = addresses + duplicates + invalid. */
  rows: number;
  /** Rows whose address (ignoring case) appeared on an earlier row. */
  duplicates: number;
  /** Rows without an address, and distinct addresses that failed the syntax pre-check. */
  invalid: number;
  /** The first few invalid rows, to show. */
  rejected: RejectedRow[];
}

const REJECTED_SHOWN = 5;

/**
 * Reads a list once, streaming. Memory grows with the number of distinct addresses only: a seen
 * set for de-duplication and the addresses to send, never the rows.
 */
export async function readAddressList(source: ListSource, options: { precheck: boolean }): Promise<AddressList> {
  const seen = new Set<string>();
  const list: AddressList = { addresses: [], rows: 0, duplicates: 0, invalid: 0, rejected: [] };
  const reject = (address: string, reason: string) => {
    list.invalid += 1;
    if (list.rejected.length < REJECTED_SHOWN) list.rejected.push({ row: list.rows, address, reason });
  };
  await forEachRow(source, (row) => {
    list.rows += 1;
    const address = addressOf(source, row);
    if (address === '') return reject(address, NO_ADDRESS);
    const key = addressKey(address);
    if (seen.has(key)) {
      list.duplicates += 1;
      return;
    }
    seen.add(key);
    const failure = options.precheck ? precheckFailure(address) : undefined;
    if (failure !== undefined) return reject(address, failure);
    list.addresses.push(address);
  });
  return list;
}
