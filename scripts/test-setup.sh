#!/usr/bin/env bash
# Sets up every part of the machine some tests need (docs/architecture.md "Tests and benchmarks"):
# Debian's chromium, iptables, zsh, fish, postgresql, gnome-keyring, dbus-daemon, libsecret-tools and
# time packages when missing, and the real MTAs on loopback (Postfix + dnsmasq, Exim + OpenSMTPD +
# dnsmasq). Needs root and apt. Idempotent.
#   npm run test:setup          set up and start (the daemons keep running)
#   npm run test:setup -- stop  stop the daemons it started
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-start}" = stop ]; then
  bash test/support/mtas/setup.sh stop || true
  bash test/support/postfix/setup.sh stop || true
  bash test/support/dropped-smtp.sh stop || true
  exit 0
fi

if [ "$(id -u)" != 0 ]; then
  echo "test:setup needs root (apt and daemons on port 25): run it with sudo" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v iptables >/dev/null || missing+=(iptables)
command -v zsh >/dev/null || missing+=(zsh)
command -v fish >/dev/null || missing+=(fish)
dpkg-query -W -f='${Status}' postgresql 2>/dev/null | grep -q 'install ok installed' || missing+=(postgresql)
# A Secret Service for the keyring tests: each test starts its own D-Bus session and gnome-keyring.
command -v gnome-keyring-daemon >/dev/null || missing+=(gnome-keyring)
command -v dbus-daemon >/dev/null || missing+=(dbus-daemon)
command -v secret-tool >/dev/null || missing+=(libsecret-tools)
# GNU time: the submit benchmark reads the CLI's peak memory from it (npm run bench:smoke in CI).
[ -x /usr/bin/time ] || missing+=(time)
if [ ${#missing[@]} -gt 0 ]; then
  # apt-get update only when the package lists are missing or stale (the first install fails).
  apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null ||
    { apt-get update >/dev/null && apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
fi

bash test/support/postfix/setup.sh
bash test/support/mtas/setup.sh
bash test/support/dropped-smtp.sh
echo "test:setup: chromium, iptables, zsh, fish, postgresql, gnome-keyring installed; Postfix, Exim and OpenSMTPD running"
