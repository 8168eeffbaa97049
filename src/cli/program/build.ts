import { Command, Option } from 'commander';
import { VERSION } from '../../version.js';
import { addExamples } from '../help/examples.js';
import { addLoginCommands, addProfileCommands } from './account.js';
import { addAdminCommands } from './admin.js';
import { addMcpCommand } from './agents.js';
import { addBulkCommands } from './bulk.js';
import { addEvidenceCommands, addTokensCommands, addWebhooksCommands } from './endpoints.js';
import { addEvidenceReceiverCommands } from './evidence-receivers.js';
import { addHelpCommands } from './help.js';
import { addServiceCommands } from './service.js';
import { addDoctorCommand, addVerifyCommand } from './verification.js';

/**
 * The whole command tree. Command modules are imported only when their command runs, so that
 * `mailverify --help` loads commander and nothing else heavy (no engine, server or CSV code).
 * commander's own usage errors are left to `reportError`, in both modes.
 */
export function buildProgram(): Command {
  const program = new Command('mailverify')
    .description(
      'Verify whether email addresses are deliverable: through a service (`mailverify login` first), or on this ' +
        'machine with no service and no account: `verify --local`, `bulk submit --local`.',
    )
    .version(VERSION, '-V, --version')
    .option('--base-url <url>', 'service URL [env MAILVERIFY_BASE_URL] (default http://127.0.0.1:8025)')
    .option('--profile <name>', 'which stored service and token to use [env MAILVERIFY_PROFILE] (default: the one of `profile use`, else "default")')
    .option('--json', 'machine-readable output on stdout')
    .option('-q, --quiet', 'print nothing but errors and the results asked for (no job ids, notices or progress)')
    .option('--no-color', 'no colours [env NO_COLOR]')
    .option('--debug', 'trace HTTP requests on stderr (Authorization redacted)')
    .option('--no-input', 'never wait for typing at the terminal: fail instead (also when CI is set)')
    .addOption(new Option('--timeout <ms>', 'HTTP request timeout').argParser(Number))
    // commander's own errors are reported as every other error is (reportError): one line on
    // stderr that says `mailverify:`, with a "did you mean" joined to it and the same hint as --json.
    .configureOutput({ outputError: () => undefined })
    .exitOverride()
    // Every --help shows the program-wide flags too, and ends with examples (help/examples.ts).
    .configureHelp({ showGlobalOptions: true })
    .helpCommand(false);

  addVerifyCommand(program);
  addServiceCommands(program);
  addDoctorCommand(program);
  addLoginCommands(program);
  addProfileCommands(program);
  addBulkCommands(program);
  addWebhooksCommands(program);
  addTokensCommands(program);
  addMcpCommand(program);
  addEvidenceReceiverCommands(addEvidenceCommands(program));
  addAdminCommands(program);
  addHelpCommands(program);
  addExamples(program);
  return program;
}
