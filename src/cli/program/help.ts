import type { Command } from 'commander';
import { lazy } from './lazy.js';

/** `completion` and `help`. */
export function addHelpCommands(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script: commands, subcommands, flags, verdicts, files')
    .argument('<shell>', 'bash, zsh or fish')
    .action(lazy(() => import('../commands/completion.js')));
  program
    .command('help')
    .description('help on a topic (exit-codes, environment, csv) or a command')
    .argument('[topic...]', 'exit-codes, environment, csv, or a command such as "bulk submit"')
    .action(lazy(() => import('../commands/help.js')));
}
