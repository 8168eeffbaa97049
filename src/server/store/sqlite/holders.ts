import { readFileSync } from 'node:fs';
import type { Holder } from '../model.js';
import type { HolderRegistry } from '../store.js';

/**
 * When a process started, in clock ticks since boot (Linux's /proc/PID/stat, field 22), so that a
 * pid the system has since given to another process does not pass for the holder; '-' where there
 * is no /proc (there a pid alone is trusted).
 */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start with field 3.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return process.platform === 'linux' ? undefined : '-';
  }
}

/** This process as a holder: `pid:start`. */
export const THIS_PROCESS = `${process.pid}:${processStart(process.pid) ?? '-'}`;

/** Whether the process a holder id names still exists (SQLite's store is on one host, so its processes are ours to see). */
export function processIsAlive(holder: string): boolean {
  const [pidText, start] = holder.split(':');
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists, under another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return start === '-' || processStart(pid) === start;
}

/** Holders on SQLite: processes of this host, alive while they run. */
export const processHolders: HolderRegistry = {
  join: async (): Promise<Holder> => ({ id: THIS_PROCESS, leave: async () => undefined }),
};
