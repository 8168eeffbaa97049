import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * The one way a test meets a missing part of the machine (Postfix, Exim, OpenSMTPD, PostgreSQL's
 * server programs, Chromium, iptables, zsh, fish): it is skipped with one line naming the part and
 * the command that sets every part up. `npm test` never installs or starts anything of the system
 * itself; `.ci/run` runs that command first and fails when any test was skipped.
 */
export const SETUP_COMMAND = 'sudo npm run test:setup';

/** True (skip) when `problem` says the part is missing, after saying so in one line. */
export function missing(file: string, part: string, problem: string | undefined): boolean {
  if (problem === undefined) return false;
  console.warn(`SKIPPED ${file}: ${part} is missing (${problem}); \`${SETUP_COMMAND}\` sets it up`);
  return true;
}

export const isRoot = process.getuid?.() === 0;

/** Why a program is not usable here, or undefined when it is on PATH. */
export function commandProblem(name: string): string | undefined {
  return spawnSync('sh', ['-c', `command -v ${name}`]).status === 0 ? undefined : `no ${name} on PATH`;
}

/** Why a file is not there, or undefined when it is. */
export function fileProblem(path: string): string | undefined {
  return existsSync(path) ? undefined : `no ${path}`;
}
