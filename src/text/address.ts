/**
 * What makes two addresses the same, wherever lists are de-duplicated or results found again: equal
 * once trimmed and ignoring case (the service de-duplicates a bulk list so, and the CLI and the
 * dashboard merge results back so).
 */
export function addressKey(address: string): string {
  return address.trim().toLowerCase();
}
