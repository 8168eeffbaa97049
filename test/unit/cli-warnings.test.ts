import { describe, expect, it } from 'vitest';
import { noKeyringWarning } from '../../src/cli/commands/login.js';

/** Warnings are one line each, saying what to do. */

describe('the no-keyring warning', () => {
  const dbus = 'Platform secure storage failure: DBus error: The name org.freedesktop.secrets was not provided by any .service files\nmore lines';

  it('is one line with the fix: a Secret Service on Linux, or --insecure-storage', () => {
    const line = noKeyringWarning(dbus, '/home/ann/.config/mailverify/config.json', 'linux');
    expect(line).not.toContain('\n');
    expect(line).toMatch(
      /^no OS keyring answers \(Platform secure storage failure: .{1,80}…\), so the token is stored in \/home\/ann\/\.config\/mailverify\/config\.json/,
    );
    expect(line).toContain('start a Secret Service (GNOME Keyring, KWallet or KeePassXC) in your D-Bus session and log in again');
    expect(line).toContain('--insecure-storage');
  });

  it('elsewhere says to unlock the keyring', () => {
    expect(noKeyringWarning('locked', '/x', 'darwin')).toContain('(locked), so the token is stored in /x, readable only by you; to fix: unlock the OS keyring');
  });
});
