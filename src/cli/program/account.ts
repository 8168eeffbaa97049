import type { Command } from 'commander';
import { lazy } from './lazy.js';

/** `login`, `logout`, `whoami`. */
export function addLoginCommands(program: Command): void {
  program
    .command('login')
    .description('store a token for the service: approved in the browser (--web), from stdin (--with-token), or by email and password')
    .option('--web', 'log in through the browser: approve a one-time code on the dashboard, where you are signed in')
    .option('--no-browser', 'with --web: print the page to open, never open a browser')
    .option('--with-token', 'read an API token (mv_...) or a JWT from stdin')
    .option('--email <email>', 'log in as this account; the password is asked for, or read with --password-stdin')
    .option('--password-stdin', 'read the password from stdin (for scripts)')
    .option('--insecure-storage', 'keep the token in the config file (mode 0600), not in the OS keyring')
    .action(lazy(() => import('../commands/login.js')));
  program
    .command('logout')
    .description('forget the stored token (and revoke it when this CLI created it)')
    .action(lazy(() => import('../commands/logout.js')));
  program
    .command('whoami')
    .description('show the account, balance, rate limit, service and where the token comes from')
    .action(lazy(() => import('../commands/whoami.js')));
}

/** `profile list|use|remove`. */
export function addProfileCommands(program: Command): void {
  const profile = program.command('profile').description('the services this CLI is logged in to, each with its own URL and token');
  profile
    .command('list')
    .description('list the profiles: which is current, their service, where their token is (--json for an array)')
    .action(lazy(() => import('../commands/profile/list.js')));
  profile
    .command('use')
    .description('make a profile the current one (--profile and MAILVERIFY_PROFILE still choose another for one command)')
    .argument('<name>', 'a profile (made by `login --profile <name>`)')
    .action(lazy(() => import('../commands/profile/use.js')));
  profile
    .command('remove')
    .description('forget a profile and its token (revoked when this CLI created it)')
    .argument('<name>', 'the profile')
    .action(lazy(() => import('../commands/profile/remove.js')));
}
