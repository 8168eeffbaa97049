import { ALWAYS_STANDING, type Holder } from '../model.js';
import { THIS_PROCESS } from '../processes.js';
import type { HolderRegistry } from '../store.js';

/** Holders on SQLite: processes, alive while they run; a process never loses its standing. */
export const processHolders: HolderRegistry = {
  join: async (): Promise<Holder> => ({ id: THIS_PROCESS, leave: async () => undefined, ...ALWAYS_STANDING }),
};
