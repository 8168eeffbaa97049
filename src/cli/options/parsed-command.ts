import type { Command } from 'commander';

/**
 * Flag values as commander left them, keyed by attribute name (`--wait-timeout` is `waitTimeout`).
 * A command reads them through the functions below, which check each value's type, and turns them
 * into its typed options; nothing casts them.
 */
export type RawFlags = Readonly<Record<string, unknown>>;

/** What commander parsed for one command, before the command turns it into its options. */
export interface ParsedCommand {
  /** The positional arguments, in the order the command declares them. */
  args: readonly unknown[];
  /** The command's own flags and those of the commands above it (`admin --data-dir`), the program's excepted. */
  flags: RawFlags;
  /** The program-wide flags (--json, --profile, …). */
  program: RawFlags;
  /** The long names of the flags typed on the command line, e.g. `--dns-server` (defaults and the environment do not count). */
  given: ReadonlySet<string>;
  /** The whole command tree (the program; the command itself when it has none above it): `help` and `completion` walk it. */
  tree: Command;
}

/** Outermost first. */
function lineage(command: Command): Command[] {
  return command.parent ? [...lineage(command.parent), command] : [command];
}

/** A command's parse, taken from commander once its action is called with `args` (the positional arguments). */
export function parsedCommand(args: readonly unknown[], command: Command): ParsedCommand {
  // A command of its own, with no program above it (as in tests), has flags and no program-wide ones.
  const [program, ...below] = lineage(command);
  const commands = command.parent ? below : [command];
  const given = new Set(
    command.options
      .filter((option) => option.long !== undefined && command.getOptionValueSource(option.attributeName()) === 'cli')
      .map((option) => option.long!),
  );
  const flags = commands.reduce<Record<string, unknown>>((all, each) => ({ ...all, ...each.opts() }), {});
  return { args, flags, program: command.parent ? program!.opts() : {}, given, tree: program! };
}

function wrongType(key: string, expected: string, value: unknown): Error {
  return new TypeError(`flag ${key}: expected ${expected}, got ${typeof value}`);
}

/** A flag with a value (`--output <file>`): its text, or undefined when not given. */
export function textFlag(flags: RawFlags, key: string): string | undefined {
  const value = flags[key];
  if (value !== undefined && typeof value !== 'string') throw wrongType(key, 'text', value);
  return value;
}

/** A repeatable or variadic flag (`--scope <scope...>`): its values, or undefined when not given. */
export function listFlag(flags: RawFlags, key: string): string[] | undefined {
  const value = flags[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((each) => typeof each === 'string')) throw wrongType(key, 'a list of text', value);
  return value as string[];
}

/** A flag parsed to a number by its own parser (`--timeout <ms>`), or undefined when not given. */
export function numberFlag(flags: RawFlags, key: string): number | undefined {
  const value = flags[key];
  if (value !== undefined && typeof value !== 'number') throw wrongType(key, 'a number', value);
  return value;
}

/** A switch (`--wait`; `--no-precheck` is `precheck`, true unless given): true only when on. */
export function switchFlag(flags: RawFlags, key: string): boolean {
  const value = flags[key];
  if (value !== undefined && typeof value !== 'boolean') throw wrongType(key, 'a switch', value);
  return value === true;
}

/** A switch that is on unless its `--no-` form is given (`--no-worker` is `worker`). */
export function unlessNegated(flags: RawFlags, key: string): boolean {
  const value = flags[key];
  if (value !== undefined && typeof value !== 'boolean') throw wrongType(key, 'a switch', value);
  return value !== false;
}

/** The positional argument at `index` of a command that declares it as one value (`<file>`). */
export function textArg(parsed: ParsedCommand, index: number): string {
  const value = parsed.args[index];
  if (typeof value !== 'string') throw wrongType(`argument ${index + 1}`, 'text', value);
  return value;
}

/** The positional argument at `index` of a command that declares it variadic (`<job...>`). */
export function listArg(parsed: ParsedCommand, index: number): string[] {
  const value = parsed.args[index];
  if (!Array.isArray(value) || !value.every((each) => typeof each === 'string')) throw wrongType(`argument ${index + 1}`, 'a list of text', value);
  return value as string[];
}
