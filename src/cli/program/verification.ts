import type { Command } from 'commander';
import { addEngineFlags } from '../options/engine-flags.js';
import { EVIDENCE_WINDOW_FLAG, EVIDENCE_WINDOW_HELP } from '../options/service-flags.js';
import { lazy } from './lazy.js';

/** `verify`. */
export function addVerifyCommand(program: Command): void {
  const verify = program
    .command('verify')
    .description('verify addresses (one per argument, or - to read one per line from stdin)')
    .argument('<email...>', 'addresses to verify, or - for stdin')
    .option('--local', 'run the engine in this process (no service, no token)')
    .option('--sandbox', 'with --local: answer by local part as a test token does (valid@, invalid@, greylisted@, ...), asking no server')
    .option('--fail-on <results>', 'exit 3 when any verdict or reason code is in this comma list (e.g. invalid,unknown or mailbox_not_found)')
    .option('--fresh', 'through a service: ask the mail host again, reuse no recent verdict (--local always asks)')
    .option('--explain', 'show how each verdict was reached: mail hosts, egress, every SMTP line with its time, what was reused, the evidence seen')
    .option(EVIDENCE_WINDOW_FLAG, `with --local, over the evidence imported with \`evidence import --local\`: ${EVIDENCE_WINDOW_HELP}`);
  addEngineFlags(verify).action(lazy(() => import('../commands/verify.js')));
}

/** `doctor`. */
export function addDoctorCommand(program: Command): void {
  const doctor = program
    .command('doctor')
    .description(
      "check that this host can verify: resolver, outbound SMTP, HELO and MAIL FROM names, proxy, each egress's standing (blocklists, reverse DNS, HELO), service, token, clock (exit 1 on a problem)",
    )
    .option(
      '--mx-host <host>',
      'a mail host to try SMTP on, repeatable (default: the MX hosts of gmail.com, outlook.com, yahoo.com)',
      (raw: string, previous: string[] = []) => [...previous, raw.trim()],
    );
  addEngineFlags(doctor).action(lazy(() => import('../commands/doctor.js')));
}
