/**
 * Child process: one CSV stage over one file, timed, its peak RSS reported by serveTask. Each
 * stage runs in a fresh process so that one stage's heap does not inflate the next one's RSS.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify';
import { serveTask } from '../lib/child.js';
import { distinctAddresses } from './generate.js';

/** A verification result as the service returns it, the same for every address. */
function resultFor(email, index) {
  const valid = index % 3 !== 0;
  return {
    email,
    result: valid ? 'valid' : 'invalid',
    reason: valid ? '' : `550 5.1.1 <${email}>: Recipient address rejected: User unknown`,
    checks: {
      format: true,
      domainExists: true,
      hasMx: true,
      domainReachable: false,
      smtpStatus: valid ? 'valid' : 'invalid',
      isDisposable: false,
      isRole: false,
      isBlacklisted: false,
      isKnownProvider: false,
      isCatchAll: false,
    },
  };
}

const STAGES = {
  /** The baseline: csv-parse → csv-stringify, nothing else, into a file. */
  async passthrough({ input, output }) {
    const started = performance.now();
    await pipeline(createReadStream(input), parse(), stringify(), createWriteStream(output));
    return { elapsedMs: performance.now() - started };
  },

  /** `bulk submit`'s reading: dialect and column detection, de-duplication, syntax pre-check. */
  async submit({ input }) {
    const { openListSource } = await import('../../dist/csv/source.js');
    const { readAddressList } = await import('../../dist/csv/address-list.js');
    const started = performance.now();
    const source = await openListSource(input);
    const list = await readAddressList(source, { precheck: true });
    const elapsedMs = performance.now() - started;
    return { elapsedMs, rows: list.rows, distinct: list.addresses.length, duplicates: list.duplicates, invalid: list.invalid };
  },

  /** `bulk results`' merge-back writer: every source row with its result's columns appended. */
  async merge({ input, output, distinct }) {
    const { openListSource } = await import('../../dist/csv/source.js');
    const { ResultIndex } = await import('../../dist/csv/result-index.js');
    const { writeResults } = await import('../../dist/csv/result-writer.js');
    // The results as `bulk results` holds them after download; building them is not timed.
    const results = new ResultIndex().add(distinctAddresses(distinct).map(resultFor));
    const started = performance.now();
    const source = await openListSource(input);
    const rows = await writeResults(createWriteStream(output), { format: 'csv', results, source });
    return { elapsedMs: performance.now() - started, rows };
  },
};

serveTask(({ stage, ...task }) => STAGES[stage](task));
