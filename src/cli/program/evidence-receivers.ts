import type { Command } from 'commander';
import { lazy } from './lazy.js';

/** `evidence receivers create|list|delete`, under the `evidence` command. */
export function addEvidenceReceiverCommands(evidence: Command): void {
  const receivers = evidence
    .command('receivers')
    .description("the URLs SendGrid's signed event webhook or SES through SNS post bounces and deliveries to, live");
  receivers
    .command('create')
    .description('create a receiver and print its URL (its end is a secret, shown only now)')
    .argument('<kind>', 'sendgrid or sns')
    .option('--public-key-file <file>', 'sendgrid: a file holding the verification key SendGrid shows for its signed event webhook')
    .option('--topic-arn <arn>', 'sns: take messages of this topic only (default: any topic that has the URL)')
    .action(lazy(() => import('../commands/evidence/receivers/create.js')));
  receivers
    .command('list')
    .description('list the receivers with when they were confirmed and last took events (never their URLs)')
    .action(lazy(() => import('../commands/evidence/receivers/list.js')));
  receivers
    .command('delete')
    .description('delete a receiver: posts to its URL are refused from then on')
    .argument('<id>', 'the receiver id (see evidence receivers list)')
    .action(lazy(() => import('../commands/evidence/receivers/delete.js')));
}
