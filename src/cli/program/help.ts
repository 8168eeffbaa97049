import type { Command } from 'commander';
import { lazyLegacy } from './lazy.js';

/** `completion` and `help`. */
export function addHelpCommands(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script: commands, subcommands, flags, verdicts, files')
    .argument('<shell>', 'bash, zsh or fish')
    .action(lazyLegacy(async () => (await import('../commands/completion.js')).runCompletion));
  program
    .command('help')
    .description('help on a topic (exit-codes, environment, csv) or a command')
    .argument('[topic...]', 'exit-codes, environment, csv, or a command such as "bulk submit"')
    .action(lazyLegacy(async () => (await import('../commands/help.js')).runHelp));

}
