#!/usr/bin/env bash
# Two more real MTAs for the engine's integration test (test/integration/mtas.test.ts), beside the
# Postfix fixture: Exim on 127.0.12.25:25 and OpenSMTPD on 127.0.12.26:25, each with real
# mailboxes, an unknown user, a catch-all domain, a deferred recipient, a policy refusal and a
# domain it refuses to relay for, and dnsmasq on 127.0.12.53:5353 answering only their zones.
#
#   sudo test/support/mtas/setup.sh          fetch and unpack (first run), (re)start, check
#   sudo test/support/mtas/setup.sh stop     stop the three daemons
#
# Debian's MTA packages conflict with each other and with the installed Postfix, so they are
# never installed: `apt-get download` fetches them and `dpkg-deb -x` unpacks them under $BASE;
# only their (non-conflicting) libraries are installed with apt. Each daemon runs from there with
# its own configuration, logs and pid file; nothing of /etc/exim4, /etc/smtpd.conf or Postfix is
# read or written. Idempotent: a re-run rewrites the configuration and restarts what runs.
# .ci/run calls it before the tests. See README.md beside this file.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly HERE
readonly BASE=/opt/mailverify-mtas
readonly EXIM_ADDRESS=127.0.12.25 SMTPD_ADDRESS=127.0.12.26
readonly DNS_ADDRESS=127.0.12.53 DNS_PORT=5353
readonly PACKAGES=(exim4-daemon-light opensmtpd)
readonly MAILBOXES=(alice bob)
readonly EXIM="$BASE/root/usr/sbin/exim4" SMTPD="$BASE/root/usr/sbin/smtpd"
readonly EXIM_PIDFILE="$BASE/exim/exim.pid" SMTPD_PIDFILE="$BASE/opensmtpd/smtpd.pid"
readonly DNSMASQ_PIDFILE="$BASE/dnsmasq/dnsmasq.pid"
readonly FIXTURE=mtas DAEMONS='Exim, OpenSMTPD and their dnsmasq'
# shellcheck source=test/support/daemons.sh
source "$HERE/../daemons.sh"

# The .debs, downloaded once and unpacked into $BASE/root (not installed: no maintainer scripts run).
fetch_packages() {
  [[ -x $EXIM && -x $SMTPD ]] && return 0
  note "downloading ${PACKAGES[*]} (unpacked under $BASE/root, not installed)"
  install -d -m 0755 "$BASE/debs" "$BASE/root"
  # apt's download sandbox user must be able to write here, or apt warns.
  if getent passwd _apt >/dev/null; then chown _apt "$BASE/debs"; fi
  rm -f "$BASE/debs"/*.deb
  (cd "$BASE/debs" && { apt-get download "${PACKAGES[@]}" || { apt-get update && apt-get download "${PACKAGES[@]}"; }; }) ||
    fail "apt-get download ${PACKAGES[*]} failed"
  local deb
  for deb in "$BASE/debs"/*.deb; do dpkg-deb -x "$deb" "$BASE/root"; done
}

# The shared libraries the unpacked binaries link against (the lib* names of the packages'
# Depends, first alternative, versions dropped), and dnsmasq; none of them conflicts with Postfix.
install_libraries() {
  local wanted=(dnsmasq-base) missing=() package
  mapfile -t -O 1 wanted < <(
    for deb in "$BASE/debs"/*.deb; do dpkg-deb -f "$deb" Depends; done |
      tr ',' '\n' | sed -e 's/|.*//' -e 's/(.*)//' -e 's/[[:space:]]//g' | grep -E '^(lib|zlib)' | sort -u
  )
  for package in "${wanted[@]}"; do is_installed "$package" || missing+=("$package"); done
  if [[ ${#missing[@]} -gt 0 ]]; then
    note "installing ${missing[*]}"
    apt_install "${missing[@]}"
  fi
  local binary
  for binary in "$EXIM" "$SMTPD"; do
    ! ldd "$binary" | grep 'not found' || fail "$binary still misses libraries (above)"
  done
}

# Exim's user is compiled in (Debian-exim), so are OpenSMTPD's (opensmtpd, opensmtpq); vmail owns
# the mailboxes of both (the Postfix fixture uses it too).
create_users() {
  local user
  for user in Debian-exim opensmtpd opensmtpq vmail; do
    getent passwd "$user" >/dev/null ||
      useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user"
  done
}

render() {
  sed -e "s|__BASE__|$BASE|g" -e "s|__EXIM_ADDRESS__|$EXIM_ADDRESS|g" -e "s|__SMTPD_ADDRESS__|$SMTPD_ADDRESS|g" \
    -e "s|__DNS_ADDRESS__|$DNS_ADDRESS|g" -e "s|__VMAIL_UID__|$(id -u vmail)|g" -e "s|__VMAIL_GID__|$(id -g vmail)|g" \
    "$HERE/$1" >"$BASE/etc/$1"
  chmod 0644 "$BASE/etc/$1"
}

configure() {
  install -d -m 0755 "$BASE/etc" "$BASE/dnsmasq" "$BASE/exim" "$BASE/opensmtpd"
  local file
  for file in exim.conf smtpd.conf dnsmasq.conf; do render "$file"; done

  # Exim: spool and logs of its own user; one maildir per mailbox (the directory list is its user
  # database); the fixtures' self-signed certificate for STARTTLS.
  install -d -o Debian-exim -g Debian-exim -m 0750 "$BASE/exim/spool" "$BASE/exim/log"
  # Readable by all: Exim lists the mailboxes as Debian-exim; each maildir is vmail's alone.
  install -d -o vmail -g vmail -m 0755 "$BASE/exim/mail" "$BASE/opensmtpd/mail"
  install -d -m 0755 "$BASE/exim/tls" "$BASE/opensmtpd/tls" "$BASE/opensmtpd/log"
  install -m 0644 "$HERE/../tls/cert.pem" "$BASE/exim/tls/cert.pem"
  install -m 0644 "$HERE/../tls/cert.pem" "$BASE/opensmtpd/tls/cert.pem"
  install -o Debian-exim -m 0600 "$HERE/../tls/key.pem" "$BASE/exim/tls/key.pem"
  install -m 0600 "$HERE/../tls/key.pem" "$BASE/opensmtpd/tls/key.pem"
  local mailbox
  for mailbox in "${MAILBOXES[@]}"; do
    install -d -o vmail -g vmail -m 0700 "$BASE/exim/mail/$mailbox" "$BASE/opensmtpd/mail/$mailbox"
  done

  # OpenSMTPD's spool (/var/spool/smtpd, which it creates) and the empty chroot of its unprivileged
  # processes are compiled in; no other program uses either.
  install -d -m 0755 /var/lib/opensmtpd/empty
  local output
  output=$("$EXIM" -C "$BASE/etc/exim.conf" -bV 2>&1) || fail "exim rejects $BASE/etc/exim.conf: $output"
  output=$("$SMTPD" -n -f "$BASE/etc/smtpd.conf" 2>&1) || fail "smtpd rejects $BASE/etc/smtpd.conf: $output"
}

stop_all() {
  stop_by_pidfile "$EXIM_PIDFILE" exim4
  stop_by_pidfile "$SMTPD_PIDFILE" smtpd
  stop_by_pidfile "$DNSMASQ_PIDFILE" dnsmasq
}

start_all() {
  # --conf-file makes dnsmasq read our file only, never /etc/dnsmasq.conf.
  dnsmasq --conf-file="$BASE/etc/dnsmasq.conf" || fail "dnsmasq did not start (see $BASE/dnsmasq/dnsmasq.log)"
  # -C as root keeps root, which the daemon needs to bind port 25; it drops to Debian-exim itself.
  "$EXIM" -C "$BASE/etc/exim.conf" -bd || fail "exim did not start (see $BASE/exim/log/paniclog)"
  # -d keeps smtpd in the foreground, logging to our file instead of a syslog this machine lacks.
  setsid "$SMTPD" -d -f "$BASE/etc/smtpd.conf" >>"$BASE/opensmtpd/log/smtpd.log" 2>&1 </dev/null &
  echo $! >"$SMTPD_PIDFILE"
}

# Every case of the README, asked of one MTA in one session; each expected reply must be there.
check_smtp() {
  local server=$1 address=$2 domain=$3 transcript
  shift 3
  transcript=$(smtp_transcript "$address" "EHLO setup.check" "MAIL FROM:<setup.check@verifier.test>" \
    "RCPT TO:<alice@$domain>" "RCPT TO:<nobody@$domain>" "RCPT TO:<anyone@catchall.$domain>" \
    "RCPT TO:<deferred@$domain>" "RCPT TO:<members-only@$domain>" "RCPT TO:<someone@norelay.$domain>" "QUIT")
  expect_replies "$server on $address:25" "$transcript" "$@"
}

start_fixture() {
  fetch_packages
  install_libraries
  create_users
  stop_all
  configure
  start_all
  wait_for_tcp "$EXIM_ADDRESS" 25
  wait_for_tcp "$SMTPD_ADDRESS" 25
  check_mx_answer "$DNS_ADDRESS" "$DNS_PORT" exim.test
  check_mx_answer "$DNS_ADDRESS" "$DNS_PORT" opensmtpd.test
  check_smtp Exim "$EXIM_ADDRESS" exim.test '^250 Accepted' '^550 Unrouteable address' \
    '^451 Temporary local problem' '^550 5\.7\.1 <members-only@exim\.test>' '^550 relay not permitted'
  check_smtp OpenSMTPD "$SMTPD_ADDRESS" opensmtpd.test '^250 2\.1\.5 Destination address valid' \
    '^524 5\.2\.4 Mailing list expansion problem: <nobody@opensmtpd\.test>' '^451 Temporary failure' \
    '^550 5\.7\.1 Delivery not authorized' '^550 Invalid recipient: <someone@norelay\.opensmtpd\.test>'
  echo "mtas fixture: ready: Exim $EXIM_ADDRESS:25 (exim.test), OpenSMTPD $SMTPD_ADDRESS:25 (opensmtpd.test), DNS $DNS_ADDRESS:$DNS_PORT"
}

fixture_main "$@"
