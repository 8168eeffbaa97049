/**
 * The baseline of bench/submit.js: the least a script does to send a CSV list to the service. It
 * reads the whole file, splits it into lines, takes the email column by its known index (no
 * column before it holds a quoted comma) and POSTs the addresses in batches of MAX_BULK_EMAILS,
 * one after another, with undici. No de-duplication, no pre-check, no state, no keys.
 *
 *   MAILVERIFY_BASE_URL=… MAILVERIFY_TOKEN=mv_… node bench/submit/naive.js list.csv 3
 */
import { readFile } from 'node:fs/promises';
import { request } from 'undici';

const BATCH = 50_000;
const [file, column] = process.argv.slice(2);
const lines = (await readFile(file, 'utf8')).split('\n');
const emails = [];
// Line 0 is the header; the file ends with a newline, so the last line is empty.
for (let i = 1; i < lines.length; i++) if (lines[i] !== '') emails.push(lines[i].split(',')[Number(column)]);
for (let start = 0; start < emails.length; start += BATCH) {
  const response = await request(`${process.env.MAILVERIFY_BASE_URL}/v1/bulk-verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.MAILVERIFY_TOKEN}` },
    body: JSON.stringify({ emails: emails.slice(start, start + BATCH) }),
  });
  const body = await response.body.json();
  if (response.statusCode !== 200) throw new Error(`POST answered ${response.statusCode}: ${JSON.stringify(body)}`);
  process.stdout.write(`${body.jobId}\n`);
}
