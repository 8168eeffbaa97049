import type { Command, Option } from 'commander';
import { OUTPUT_FORMATS } from '../../csv/result-writer.js';
import { REASON_CODE_NAMES } from '../../engine/core/reason-codes.js';
import { VERDICTS } from '../../engine/core/types.js';
import { LOG_LEVELS } from '../../server/settings.js';
import { UsageError } from '../output/errors.js';
import type { Io } from '../output/io.js';
import { textArg, type ParsedCommand } from '../options/parsed-command.js';
import { commandPath } from '../help/examples.js';
import { TOPICS } from '../help/topics.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** What may follow a flag that takes a value: words, files, directories, or nothing known. */
type Values = { words: readonly string[] } | 'files' | 'dirs' | 'none';

/** `--only` and `--fail-on` take verdicts and reason codes (`catch_all` is both). */
const SELECTORS = [...VERDICTS, ...REASON_CODE_NAMES.filter((code) => code !== 'catch_all')];

/** Flag values the completion knows, by flag; every other value is free text. */
const FLAG_VALUES: Record<string, Values> = {
  '--only': { words: SELECTORS },
  '--fail-on': { words: SELECTORS },
  '--format': { words: OUTPUT_FORMATS },
  '--log-level': { words: LOG_LEVELS },
  '--output': 'files',
  '--input': 'files',
  '--data-dir': 'dirs',
};

/** What each command's positional arguments complete to, by command path. */
const ARGUMENT_VALUES: Record<string, Values> = {
  'bulk submit': 'files',
  completion: { words: SHELLS },
  help: { words: Object.keys(TOPICS) },
};

interface CommandSpec {
  path: string;
  description: string;
  subcommands: string[];
  flags: { name: string; takesValue: boolean; description: string }[];
  argument: Values;
}

const flagsOf = (options: readonly Option[]) =>
  options
    .filter((option) => option.long !== undefined)
    .map((option) => ({ name: option.long!, takesValue: option.required || option.optional, description: option.description }));

/** Every command of the program, its subcommands and flags (the program's own apply everywhere). */
function commandSpecs(program: Command): CommandSpec[] {
  const global = flagsOf(program.options);
  const specs: CommandSpec[] = [];
  const walk = (command: Command) => {
    const path = commandPath(command);
    specs.push({
      path,
      description: command.description(),
      subcommands: command.commands.map((sub) => sub.name()),
      flags: [...(path === '' ? [] : flagsOf(command.options)), ...global, { name: '--help', takesValue: false, description: 'show help' }],
      argument: ARGUMENT_VALUES[path] ?? 'none',
    });
    command.commands.forEach(walk);
  };
  walk(program);
  return specs;
}

const valueFlags = (specs: CommandSpec[]) => [...new Set(specs.flatMap((spec) => spec.flags.filter((flag) => flag.takesValue).map((flag) => flag.name)))];

function bashValues(values: Values): string {
  if (values === 'files') return 'COMPREPLY=($(compgen -f -- "$cur"))';
  if (values === 'dirs') return 'COMPREPLY=($(compgen -d -- "$cur"))';
  if (values === 'none') return 'COMPREPLY=()';
  return `COMPREPLY=($(compgen -W "${values.words.join(' ')}" -- "$cur"))`;
}

/**
 * bash: the command path is read from the words typed so far (flags and their values skipped),
 * then the subcommands, the flags, or a flag's values are offered.
 */
function bashScript(specs: CommandSpec[]): string {
  const takesValue = valueFlags(specs);
  const casesFor = (pick: (spec: CommandSpec) => string) => specs.map((spec) => `    "${spec.path}") ${pick(spec)} ;;`).join('\n');
  const flagValueCases = Object.entries(FLAG_VALUES)
    .map(([flag, values]) => `    ${flag}) ${bashValues(values)}; return ;;`)
    .join('\n');
  return `# mailverify completion for bash. Load it now:   source <(mailverify completion bash)
# or for every shell:  mailverify completion bash > ~/.local/share/bash-completion/completions/mailverify

_mailverify_subcommands() {
  case "$1" in
${casesFor((spec) => `echo "${spec.subcommands.join(' ')}"`)}
  esac
}

_mailverify_flags() {
  case "$1" in
${casesFor((spec) => `echo "${spec.flags.map((flag) => flag.name).join(' ')}"`)}
  esac
}

_mailverify_arguments() {
  case "$1" in
${casesFor((spec) => `${bashValues(spec.argument)}`)}
  esac
}

_mailverify() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" path="" word i skip=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    if [[ -n "$skip" ]]; then skip=""; continue; fi
    case " ${takesValue.join(' ')} " in *" $word "*) skip=1; continue ;; esac
    [[ "$word" == -* ]] && continue
    case " $(_mailverify_subcommands "$path") " in *" $word "*) path="\${path:+$path }$word" ;; esac
  done
  case "$prev" in
${flagValueCases}
  esac
  case " ${takesValue.join(' ')} " in *" $prev "*) COMPREPLY=(); return ;; esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_mailverify_flags "$path")" -- "$cur"))
  elif [[ -n "$(_mailverify_subcommands "$path")" ]]; then
    COMPREPLY=($(compgen -W "$(_mailverify_subcommands "$path")" -- "$cur"))
  else
    _mailverify_arguments "$path"
  fi
}
complete -o default -F _mailverify mailverify
`;
}

/** zsh runs the bash completion through its bashcompinit layer: one logic, two shells. */
function zshScript(specs: CommandSpec[]): string {
  return `#compdef mailverify
# mailverify completion for zsh. Load it now:   source <(mailverify completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashScript(specs)
  .split('\n')
  .filter((line) => !line.startsWith('# mailverify completion') && !line.startsWith('# or for every shell'))
  .join('\n')}`;
}

const fishQuote = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

function fishValues(values: Values): string {
  if (values === 'files' || values === 'dirs') return '-r -F';
  if (values === 'none') return '-x';
  return `-x -a ${fishQuote(values.words.join(' '))}`;
}

/** fish: one `complete` line per subcommand, flag and argument, each under the condition of its command path. */
function fishScript(specs: CommandSpec[]): string {
  const lines = ['# mailverify completion for fish:  mailverify completion fish > ~/.config/fish/completions/mailverify.fish', 'complete -c mailverify -f'];
  const inPath = (path: string) => {
    const words = path === '' ? [] : path.split(' ');
    const seen = words.map((word) => `__fish_seen_subcommand_from ${word}`);
    const children = specs.find((spec) => spec.path === path)!.subcommands;
    const notDeeper = children.length > 0 ? [`not __fish_seen_subcommand_from ${children.join(' ')}`] : [];
    return fishQuote(path === '' ? '__fish_use_subcommand' : [...seen, ...notDeeper].join('; and '));
  };
  for (const spec of specs) {
    const condition = inPath(spec.path);
    for (const sub of spec.subcommands) {
      const description = specs.find((each) => each.path === (spec.path === '' ? sub : `${spec.path} ${sub}`))!.description;
      lines.push(`complete -c mailverify -n ${condition} -a ${sub} -d ${fishQuote(description)}`);
    }
    for (const flag of spec.flags) {
      const values = flag.takesValue ? fishValues(FLAG_VALUES[flag.name] ?? 'none') : '';
      lines.push(`complete -c mailverify -n ${condition} -l ${flag.name.slice(2)} ${values} -d ${fishQuote(flag.description)}`.replace(/ {2,}/g, ' '));
    }
    if (spec.argument !== 'none') lines.push(`complete -c mailverify -n ${condition} ${fishValues(spec.argument)}`);
  }
  return `${lines.join('\n')}\n`;
}

type Shell = (typeof SHELLS)[number];

export interface CompletionOptions {
  shell: Shell;
  /** The command tree the script completes. */
  tree: Command;
}

export function parse(parsed: ParsedCommand): CompletionOptions {
  const shell = textArg(parsed, 0);
  const known = SHELLS.find((each) => each === shell);
  if (known === undefined) throw new UsageError(`completion takes ${SHELLS.join(', ')}; got "${shell}"`);
  return { shell: known, tree: parsed.tree };
}

const SCRIPTS: Record<Shell, (specs: CommandSpec[]) => string> = { bash: bashScript, zsh: zshScript, fish: fishScript };

/** `mailverify completion bash|zsh|fish`: the script on stdout, built from the command tree itself. */
export async function run({ shell, tree }: CompletionOptions, io: Io): Promise<void> {
  io.stdout.write(SCRIPTS[shell](commandSpecs(tree)));
}
