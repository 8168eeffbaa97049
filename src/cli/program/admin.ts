import type { Command } from 'commander';
import { addStoreFlags } from '../options/store-flags.js';
import { lazy } from './lazy.js';

/** `admin …`: the service's store, worked on directly. */
export function addAdminCommands(program: Command): void {
  const admin = program
    .command('admin')
    .description('manage users, credits and API tokens in the store of `mailverify serve` (its data dir or database, also while it runs)')
    .option('--create', 'create the database when the data dir holds none (otherwise that is an error)');
  addStoreFlags(admin, 'the service data directory');
  const adminUser = admin.command('user').description('add, list and delete users, and set their passwords');
  adminUser
    .command('add')
    .description('add a user')
    .argument('<email>', 'the account address')
    .option('--credits <n>', 'starting balance (default 0)')
    .option('--rate-limit <n>', 'requests per second allowed (default 20)')
    .option('--password-stdin', 'read a login password from stdin')
    .action(lazy(() => import('../commands/admin/user-add.js')));
  adminUser
    .command('delete')
    .description('delete a user and all their data: tokens, jobs with their addresses and results, webhooks, cached verdicts, ledger')
    .argument('<email>', 'the account address')
    .action(lazy(() => import('../commands/admin/user-delete.js')));
  adminUser
    .command('password')
    .description("set a user's login password, read from stdin; ends their login tokens and dashboard sessions (API tokens stay)")
    .argument('<email>', 'the account address')
    .option('--password-stdin', 'read the new password from stdin (required: a password is never an argument)')
    .action(lazy(() => import('../commands/admin/user-password.js')));
  adminUser
    .command('list')
    .description('list users with balance and rate limit (--json for an array)')
    .action(lazy(() => import('../commands/admin/user-list.js')));
  admin
    .command('credits')
    .description('change balances')
    .command('add')
    .description('add credits to a user (negative after -- to take some back)')
    .argument('<email>', 'the account address')
    .argument('<n>', 'credits to add')
    .action(lazy(() => import('../commands/admin/credits-add.js')));
  admin
    .command('rate-limit')
    .description('change rate limits')
    .command('set')
    .description("set a user's rate limit: <n> requests per window")
    .argument('<email>', 'the account address')
    .argument('<n>', 'requests allowed per window')
    .option('--window <seconds>', 'the window length (default: keep the current one, 1 s for new users)')
    .action(lazy(() => import('../commands/admin/rate-limit-set.js')));
  admin
    .command('token')
    .description('API tokens')
    .command('create')
    .description('create an mv_ API token for a user and print only the token')
    .argument('<email>', 'the account address')
    .option('--name <name>', 'a label for the token (default "admin")')
    .action(lazy(() => import('../commands/admin/token-create.js')));
}
