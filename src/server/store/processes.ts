import { createHash } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Processes as holders of leases: which process a holder id names, and whether it still exists.
 * Only a process of the same place can tell (see pidPlace); a holder of another place is left to
 * its leases' time (SQLite) or to the grace after its session is gone (PostgreSQL).
 */

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
function pidPlace(): string {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? '';
    return `${boot}.${namespace}`;
  } catch {
    return hostname().replaceAll(':', '.');
  }
}

const HERE = pidPlace();
/** The place in 8 hex digits, where an id must be short: PostgreSQL's application_name holds 63 bytes. */
const HERE_DIGEST = createHash('sha256').update(HERE).digest('hex').slice(0, 8);
const THIS_PID = `${process.pid}:${processStart(process.pid) ?? '-'}`;

/** This process as a holder on SQLite: `place:pid:start`. */
export const THIS_PROCESS = `${HERE}:${THIS_PID}`;

/** A new holder id of this process for PostgreSQL: `digest:pid:start:random` (a process may join more than once). */
export function newProcessHolderId(random: string): string {
  return `${HERE_DIGEST}:${THIS_PID}:${random}`;
}

/** Whether the process `pid` that started at `start` exists (EPERM: it does, under another user). */
function pidExists(pidText: string | undefined, start: string | undefined): boolean {
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return start === '-' || processStart(pid) === start;
}

/**
 * Whether the process a SQLite holder id names still exists, as far as this process can tell: a
 * holder of another place is taken to exist (its leases run out with their time), since its pid
 * says nothing here. An id without a place (`pid:start`, written before places were) is this place's.
 */
export function processIsAlive(holder: string): boolean {
  const parts = holder.split(':');
  const [place, pidText, start] = parts.length === 2 ? [HERE, ...parts] : parts;
  return place !== HERE || pidExists(pidText, start);
}

/**
 * Whether a PostgreSQL holder id names a process of this place that no longer exists: then nothing
 * can be working its leases, and they need not wait for the grace after its session is seen gone
 * (a worker restarted after a crash takes its predecessor's work back at once). False for any other
 * id, a holder of another place or one written before ids named their process.
 */
export function processIsGone(holder: string): boolean {
  const [digest, pidText, start, random] = holder.split(':');
  return random !== undefined && digest === HERE_DIGEST && !pidExists(pidText, start);
}
