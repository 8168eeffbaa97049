/**
 * A list file that cannot be used as given: which file, where in it (an editor's 1-based line,
 * when one line is to blame), what is wrong and what to do about it. The csv layer knows nothing of
 * exit codes or HTTP statuses: the CLI reports this as a usage error (exit 2), a service as a 4xx.
 */
export class CsvError extends Error {
  readonly line: number | undefined;
  readonly hint: string | undefined;

  constructor(
    /** The name the user gave the file (`stdin` for standard input). */
    readonly file: string,
    readonly what: string,
    /** `namesFile`: `what` is a whole sentence that names the file itself, so it is not put in front. */
    options: { line?: number; hint?: string; namesFile?: boolean } = {},
  ) {
    super(options.namesFile ? what : `${file}: ${options.line === undefined ? '' : `line ${options.line}: `}${what}`);
    this.name = new.target.name;
    this.line = options.line;
    this.hint = options.hint;
  }
}
