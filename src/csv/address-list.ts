import { CsvError } from './errors.js';
import { NO_ADDRESS, precheckFailure } from './precheck.js';
import { addressKey } from '../engine/checks/address-key.js';
import { forEachAddress, type ListSource, type RowPlace } from './source.js';

/** A pre-check failure shown to the user: where (as an editor shows it), what and why. */
export interface RejectedRow {
  /** The file line the row starts on, 1-based. */
  line: number;
  /** The CSV record number, header included, blank rows not counted. */
  record: number;
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
  /** Rows without an address, and distinct addresses that failed the syntax check. */
  invalid: number;
  /** Invalid rows to show: the first few, or the page of them asked for (ReadOptions.rejected). */
  rejected: RejectedRow[];
}

/** Which invalid rows a read keeps to show: `take` of them after the first `skip`. */
export interface RejectedPage {
  skip: number;
  take: number;
}

const FIRST_REJECTED: RejectedPage = { skip: 0, take: 5 };

/** The email column as the user knows it: its header name, else its number. */
function columnName(source: ListSource): string {
  const { header, index } = source.column;
  return header ? JSON.stringify(header[index]!.trim()) : String(index + 1);
}

/** Adds addresses to a list as its rows are read: de-duplicated, pre-checked, counted. */
function listCollector(options: { precheck: boolean; rejected?: RejectedPage }) {
  const { skip, take } = options.rejected ?? FIRST_REJECTED;
  const list: AddressList = { addresses: [], rows: 0, duplicates: 0, invalid: 0, rejected: [] };
  const seen = new Set<string>();
  const reject = (place: RowPlace, address: string, reason: string) => {
    list.invalid += 1;
    if (list.invalid > skip && list.rejected.length < take) list.rejected.push({ line: place.line, record: place.record, address, reason });
  };
  const add = (place: RowPlace, address: string) => {
    list.rows += 1;
    if (address === '') return reject(place, address, NO_ADDRESS);
    // One look-up, not has() then add(): on a million distinct addresses the set is most of the read's time.
    const distinct = seen.size;
    seen.add(addressKey(address));
    if (seen.size === distinct) {
      list.duplicates += 1;
      return;
    }
    const failure = options.precheck ? precheckFailure(address) : undefined;
    if (failure !== undefined) return reject(place, address, failure);
    list.addresses.push(address);
  };
  return { list, add };
}

/** A list given as addresses (`mcp`'s `submit_list`), read as a plain list of one address per line would be. */
export function addressListOf(emails: readonly string[], options: { precheck: boolean }): AddressList {
  const { list, add } = listCollector(options);
  emails.forEach((email, index) => add({ line: index + 1, record: index + 1 }, email.trim()));
  return list;
}

/**
 * Reads a list once, streaming.
 * Memory grows with the number of distinct addresses only: a seen set for de-duplication and the
 * addresses to send, never the rows. A list whose column holds not one address (not even a
 * malformed one) is an error, not an empty success: the column is wrong.
 */
export async function readAddressList(source: ListSource, options: { precheck: boolean; rejected?: RejectedPage }): Promise<AddressList> {
  const { list, add } = listCollector(options);
  let withAt = 0;
  await forEachAddress(source, (row) => {
    if (row.blank) return;
    if (row.address.includes('@')) withAt += 1;
    add(row, row.address);
  });
  if (withAt === 0) {
    throw new CsvError(
      source.label,
      `no addresses in column ${columnName(source)} of ${source.label} (${list.rows} ${list.rows === 1 ? 'row' : 'rows'} read)`,
      {
        namesFile: true,
        columnProblem: true,
      },
    );
  }
  return list;
}
