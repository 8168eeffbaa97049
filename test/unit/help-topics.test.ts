import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOPICS } from '../../src/cli/help/topics.js';
import { RESULT_COLUMNS } from '../../src/csv/result-columns.js';
import { isReasonCode } from '../../src/engine/core/reason-codes.js';

/**
 * `mailverify help <topic>` is prose written by hand; these tests hold it to the code, so that a
 * variable or a column added to the code and not to the help (or the other way) fails here.
 */
const SRC = join(import.meta.dirname, '../../src');
/** The help's own text names variables; it is what is checked, not what it is checked against. */
const HELP_DIR = join(SRC, 'cli/help');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === HELP_DIR ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const NAME = 'MAILVERIFY_[A-Z0-9_]*[A-Z0-9]';
/**
 * What the code reads: `env.MAILVERIFY_X` (process.env or an env passed in), or a string that is
 * exactly a variable's name, as the tables hand to `env[name]` (the engine flags' `env`, the
 * retries', the webhook schedule's). A name inside a sentence (`[env MAILVERIFY_X]` in a flag's
 * description, a hint) is not a read, and a comment is not code.
 */
const READ = new RegExp(`\\benv\\.(${NAME})\\b|(['"\`])(${NAME})\\2`, 'g');
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/** Every MAILVERIFY_ variable src/ reads, with the files that read it. */
function variablesTheCodeReads(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    for (const match of withoutComments(readFileSync(file, 'utf8')).matchAll(READ)) {
      const name = match[1] ?? match[3]!;
      found.set(name, [...(found.get(name) ?? []), relative(SRC, file)]);
    }
  }
  return found;
}

const namedIn = (text: string) => new Set(text.match(new RegExp(NAME, 'g')) ?? []);

describe('help environment', () => {
  const code = variablesTheCodeReads();
  const help = namedIn(TOPICS.environment!);

  it('finds the variables the code reads (the scan itself works)', () => {
    // One of each kind of read: env.X, a table's name, the engine flags' table.
    expect([...code.keys()]).toEqual(
      expect.arrayContaining(['MAILVERIFY_TOKEN', 'MAILVERIFY_RETRY_MAX_ATTEMPTS', 'MAILVERIFY_DNS_SERVERS', 'MAILVERIFY_WEB_CHECK']),
    );
    expect(code.size).toBeGreaterThan(40);
  });

  it('names every variable the code reads', () => {
    const missing = [...code].filter(([name]) => !help.has(name)).map(([name, files]) => `${name} (read in ${files.join(', ')})`);
    expect(missing).toEqual([]);
  });

  it('names no variable the code does not read', () => {
    expect([...help].filter((name) => !code.has(name))).toEqual([]);
  });
});

describe('help csv', () => {
  const topic = TOPICS.csv!;

  it('names the columns a CSV output gets, in their order', () => {
    const block = /appended under their own headers[^\n]*\n((?: {6}\S[^\n]*\n)+)/.exec(topic);
    expect(block, 'the list of appended columns').not.toBeNull();
    expect(block![1]!.trim().split(/\s+/)).toEqual([...RESULT_COLUMNS]);
  });

  it('names no column the writer does not write', () => {
    // Column-like words anywhere in the topic (snake_case or camelCase), reason codes aside: they are a column's values.
    const columnLike = topic.match(/\b[a-z]+(?:_[a-z]+)+\b|\b[a-z]+[A-Z][A-Za-z]*\b/g) ?? [];
    expect(columnLike.filter((word) => !RESULT_COLUMNS.includes(word) && !isReasonCode(word))).toEqual([]);
  });
});
