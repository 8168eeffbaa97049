/**
 * A list file that cannot be used as given: which file, where in it (an editor's 1-based line,
 * when one line is to blame), what is wrong and what to do about it. The csv layer knows nothing of
 * exit codes or HTTP statuses, nor of how its caller lets a user pick a column: the CLI reports this
 * as a usage error (exit 2) with its own hint for `columnProblem` (a flag), the dashboard as a 4xx
 * with its own (a choice on the page).
 */
export class CsvError extends Error {
  readonly line: number | undefined;
  readonly hint: string | undefined;
  /** Naming another column may fix it (none found, none such, or the one named holds no addresses). */
  readonly columnProblem: boolean;

  constructor(
    /** The name the user gave the file (`stdin` for standard input). */
    readonly file: string,
    readonly what: string,
    /** `namesFile`: `what` is a whole sentence that names the file itself, so it is not put in front. */
    options: { line?: number; hint?: string; namesFile?: boolean; columnProblem?: boolean } = {},
  ) {
    super(options.namesFile ? what : `${file}: ${options.line === undefined ? '' : `line ${options.line}: `}${what}`);
    this.name = new.target.name;
    this.line = options.line;
    this.hint = options.hint;
    this.columnProblem = options.columnProblem ?? false;
  }
}
