import type { Command } from 'commander';
import { addEngineFlags } from '../options/engine-flags.js';
import { lazy } from './lazy.js';

/** `mcp`: the tools of this CLI for an agent, over the Model Context Protocol on stdio. */
export function addMcpCommand(program: Command): void {
  const mcp = program
    .command('mcp')
    .description(
      "serve the Model Context Protocol on stdin/stdout for an agent: verify_email, submit_list, job_status, job_results, explain_email, against the profile's service (or --local)",
    )
    .option('--local', 'verify on this machine, no service or token: lists are worked in the local data dir while the server runs')
    .option(
      '--data-dir <dir>',
      "with --local: where lists are worked, made private [env MAILVERIFY_LOCAL_DATA_DIR] (default: the local folder of the OS data directory, never the service's)",
    );
  addEngineFlags(mcp).action(lazy(() => import('../commands/mcp/server.js')));
}
