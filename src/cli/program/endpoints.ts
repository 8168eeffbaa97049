import type { Command } from 'commander';
import { lazy } from './lazy.js';

/** `webhooks add|list|remove|test`. */
export function addWebhooksCommands(program: Command): void {
  const webhooks = program.command('webhooks').description('the endpoints that receive signed events (a bulk job completed) for this account');
  webhooks
    .command('add')
    .description('register an endpoint and print its signing secret (whsec_..., shown only now)')
    .argument('<url>', 'an http(s) URL that takes POSTs')
    .option('--description <text>', 'a note on what the endpoint is')
    .action(lazy(() => import('../commands/webhooks/add.js')));
  webhooks
    .command('list')
    .description('list the endpoints with their last delivery attempt (--json for every field and the last attempts)')
    .action(lazy(() => import('../commands/webhooks/list.js')));
  webhooks
    .command('remove')
    .description('remove an endpoint: nothing more is sent to it')
    .argument('<id>', 'the endpoint id (see webhooks list)')
    .action(lazy(() => import('../commands/webhooks/remove.js')));
  webhooks
    .command('test')
    .description('send a webhook.test event to an endpoint and print its webhook-id')
    .argument('<id>', 'the endpoint id (see webhooks list)')
    .action(lazy(() => import('../commands/webhooks/test.js')));
}

/** `tokens create|list|revoke`. */
export function addTokensCommands(program: Command): void {
  const tokens = program.command('tokens').description('the API tokens of this account: what each may do and until when');
  tokens
    .command('create')
    .description('create an mv_ API token and print only the token (shown only now)')
    .option('--name <name>', 'a label for the token (default "mailverify-<this host>")')
    .option('--scope <scope...>', 'what it may do, one or more of verify, bulk, results, account, evidence (default: all)')
    .option('--expires <duration>', 'when it stops working, from now: 90d, 12h, 30m or seconds (default: never)')
    .option('--test', 'a test token (mv_test_…): answered by the sandbox by local part, no mail server asked, nothing charged')
    .action(lazy(() => import('../commands/tokens/create.js')));
  tokens
    .command('list')
    .description('list the tokens with their scopes, expiry and last use (never the secrets)')
    .action(lazy(() => import('../commands/tokens/list.js')));
  tokens
    .command('revoke')
    .description('revoke a token: it is refused from the next request')
    .argument('<id>', 'the token id (see tokens list)')
    .action(lazy(() => import('../commands/tokens/revoke.js')));
}

/** `evidence import|list|delete`; returns the group, which `evidence receivers` joins. */
export function addEvidenceCommands(program: Command): Command {
  const evidence = program
    .command('evidence')
    .description("your own mail's bounces and deliveries: they decide verdicts SMTP cannot (catch-all domains, Yahoo/AOL)");
  const local = 'the local data dir that verify --local and bulk submit --local use, not a service';
  const dataDir = 'with --local: the local data dir [env MAILVERIFY_LOCAL_DATA_DIR] (default: the local folder of the OS data directory)';
  evidence
    .command('import')
    .description('read bounces (.eml, mbox, Maildir), Postfix/Exim/Sendmail logs, SES/SendGrid/Mailgun/Postmark JSON or CSV, by content, into your evidence')
    .argument('<files...>', 'files or folders')
    .option('--source <label>', 'what to call where the events came from (default: by format, e.g. dsn, postfix, ses)')
    .option('--local', local)
    .option('--data-dir <dir>', dataDir)
    .action(lazy(() => import('../commands/evidence/import.js')));
  evidence
    .command('list')
    .description('what your evidence says of each address: email, verdict, the deciding event (--json: one object a line)')
    .option('--email <address>', 'one address only')
    .option('--local', local)
    .option('--data-dir <dir>', dataDir)
    .action(lazy(() => import('../commands/evidence/list.js')));
  evidence
    .command('delete')
    .description("delete evidence: one address's, one source's, or all")
    .option('--email <address>', "this address's events")
    .option('--source <label>', "this source's events")
    .option('--all', 'every event')
    .option('--local', local)
    .option('--data-dir <dir>', dataDir)
    .action(lazy(() => import('../commands/evidence/delete.js')));
  return evidence;
}
