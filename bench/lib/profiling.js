import { fileURLToPath } from 'node:url';
import { WORK_DIR } from './work-dir.js';

/** Where `--cpu-prof` runs leave their .cpuprofile files (read them with bench/profile-summary.js). */
export const PROFILE_DIR = fileURLToPath(new URL('profiles/', WORK_DIR));

/**
 * Node flags that make a measured process write a CPU profile named `name` when the run asked
 * for one (`--cpu-prof`), none otherwise.
 */
export function profileFlags({ cpuProf = false } = {}, name) {
  return cpuProf ? ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR, '--cpu-prof-name', `${name}.cpuprofile`] : [];
}
