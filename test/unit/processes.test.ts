import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { newProcessHolderId, processIsAlive, processIsGone, THIS_PROCESS } from '../../src/server/store/processes.js';

/** A child process that waits until killed. */
async function child() {
  const process_ = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  await once(process_, 'spawn');
  return process_;
}

describe('holder ids that name their process', () => {
  const digest = newProcessHolderId('r').split(':')[0]!;

  it('fit a PostgreSQL application_name after the prefix, and name this process', () => {
    const id = newProcessHolderId('0123abcd');
    expect(('mailverify-holder:' + id).length).toBeLessThanOrEqual(63);
    expect(id.split(':').slice(1, 2)).toEqual([String(process.pid)]);
    expect(processIsGone(id)).toBe(false);
    expect(processIsAlive(THIS_PROCESS)).toBe(true);
  });

  it('say a process of this machine is gone once it has exited, and only then', async () => {
    const waiting = await child();
    const id = `${digest}:${waiting.pid}:-:0123abcd`;
    expect(processIsGone(id)).toBe(false);
    waiting.kill('SIGKILL');
    await once(waiting, 'exit');
    expect(processIsGone(id)).toBe(true);
  });

  it('never say so of a holder of another place, or of an id that names no process', async () => {
    const gone = await child();
    gone.kill('SIGKILL');
    await once(gone, 'exit');
    const elsewhere = digest === 'ffffffff' ? '00000000' : 'ffffffff';
    expect(processIsGone(`${elsewhere}:${gone.pid}:-:0123abcd`)).toBe(false);
    expect(processIsGone('1b4e28ba-2fa1-11d2-883f-0016d3cca427')).toBe(false);
    expect(processIsGone(`${digest}:${gone.pid}:-`)).toBe(false);
  });
});
