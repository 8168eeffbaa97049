import { createRequire } from 'node:module';

/**
 * The OS keyring (macOS Keychain, Windows Credential Manager, the Secret Service on Linux) through
 * @napi-rs/keyring, a prebuilt native module: loaded only when a token is stored or read, so that
 * commands without one never pay for it, and treated as absent when it cannot load.
 * See docs/architecture.md "Profiles and the keyring".
 */
export interface Keyring {
  get(account: string): string | undefined;
  set(account: string, secret: string): void;
  /** Whether there was an entry to delete. */
  delete(account: string): boolean;
}

export type KeyringAccess = { keyring: Keyring } | { unavailable: string };

/** The keyring's service name: each entry's account says which profile of which config dir it belongs to. */
const SERVICE = 'mailverify';

interface EntryClass {
  new (
    service: string,
    account: string,
    options?: { linux?: { store?: 'secret-service' | 'keyutils' } },
  ): {
    getPassword(): string | null;
    setPassword(password: string): void;
    deletePassword(): boolean;
  };
}

/** An error's message on one line, as the CLI's messages are. */
export const reason = (error: unknown) => (error instanceof Error ? error.message : String(error)).trim().replace(/\s*\n\s*/g, ' ');

let loaded: { Entry: EntryClass } | { error: string } | undefined;

function loadModule(): { Entry: EntryClass } | { error: string } {
  if (loaded === undefined) {
    try {
      loaded = { Entry: (createRequire(import.meta.url)('@napi-rs/keyring') as { Entry: EntryClass }).Entry };
    } catch (error) {
      loaded = { error: `the keyring module cannot load (${reason(error)})` };
    }
  }
  return loaded;
}

/**
 * The keyring, when its module loads; each call throws when the store does not answer (no D-Bus
 * session, no Secret Service, a locked collection), with the reason. On Linux only the Secret
 * Service counts: the kernel's keyutils (the module's own fallback) forgets everything at reboot.
 */
export function openKeyring(): KeyringAccess {
  const module = loadModule();
  if ('error' in module) return { unavailable: module.error };
  const entry = (account: string) => new module.Entry(SERVICE, account, { linux: { store: 'secret-service' } });
  return {
    keyring: {
      get: (account) => entry(account).getPassword() ?? undefined,
      set: (account, secret) => entry(account).setPassword(secret),
      delete: (account) => entry(account).deletePassword(),
    },
  };
}

/** The keyring account of a profile: its name and the config dir, so two config dirs never share a token. */
export function keyringAccount(profile: string, configDir: string): string {
  return `${profile}@${configDir}`;
}
