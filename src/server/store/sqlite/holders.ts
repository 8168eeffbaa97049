import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { ALWAYS_STANDING, type Holder } from '../model.js';
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

/**
 * Where this process's pids mean something: the kernel's boot (its boot id) and the pid namespace
 * (containers on one kernel share the boot id, not their pids); the host name where there is no
 * /proc. Processes of the same place see each other's pids; of another (another machine, another
 * container sharing the data dir's volume), never.
 */
export function pidPlace(): string {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? '';
    return `${boot}.${namespace}`;
  } catch {
    return hostname().replaceAll(':', '.');
  }
}

const HERE = pidPlace();

/** This process as a holder: `place:pid:start`. */
export const THIS_PROCESS = `${HERE}:${process.pid}:${processStart(process.pid) ?? '-'}`;

/**
 * Whether the process a holder id names still exists, as far as this process can tell: a holder
 * of another place (see pidPlace) is taken to exist (its leases run out with their time), since its
 * pid says nothing here. An id without a place (`pid:start`, written before places were) is this place's.
 */
export function processIsAlive(holder: string): boolean {
  const parts = holder.split(':');
  const [place, pidText, start] = parts.length === 2 ? [HERE, ...parts] : parts;
  if (place !== HERE) return true;
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

/** Holders on SQLite: processes, alive while they run; a process never loses its standing. */
export const processHolders: HolderRegistry = {
  join: async (): Promise<Holder> => ({ id: THIS_PROCESS, leave: async () => undefined, ...ALWAYS_STANDING }),
};
