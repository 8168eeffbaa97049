#!/usr/bin/env bash
# A real MTA for the engine's integration test (test/integration/postfix.test.ts): Postfix on
# 127.0.0.25:25 with real mailboxes, a catch-all domain and a greylisted recipient (postgrey),
# and dnsmasq on 127.0.0.53:5353 answering only the test zones. Everything binds to loopback only.
#
#   sudo test/support/postfix/setup.sh          install (first run), (re)start, check
#   sudo test/support/postfix/setup.sh stop     stop the three daemons
#
# Idempotent: a re-run rewrites the configuration and restarts what is already running.
# .ci/run calls it before the tests. See README.md beside this file.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly HERE
readonly MX_ADDRESS=127.0.0.25
readonly DNS_ADDRESS=127.0.0.53 DNS_PORT=5353
readonly POLICY_PORT=10023 GREYLIST_DELAY_S=2
readonly MAPS_DIR=/etc/postfix/mailverify MAILBOX_BASE=/var/mail/mailverify
readonly DNSMASQ_PIDFILE=/run/mailverify-dnsmasq.pid
readonly POSTGREY_PIDFILE=/run/mailverify-postgrey.pid POSTGREY_DBDIR=/var/lib/mailverify-postgrey
readonly MARKER='# managed-by: mailverify'
readonly PACKAGES=(postfix postgrey dnsmasq-base)
readonly FIXTURE=postfix DAEMONS='Postfix, postgrey and dnsmasq'
# shellcheck source=test/support/daemons.sh
source "$HERE/../daemons.sh"

install_packages() {
  local missing=() package
  for package in "${PACKAGES[@]}"; do is_installed "$package" || missing+=("$package"); done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  note "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Postfix's own questions: no configuration (main.cf is ours), and the fixture's host name.
  debconf-set-selections <<'EOF'
postfix postfix/main_mailer_type select No configuration
postfix postfix/mailname string mx.mailbox.test
EOF
  # Packages must not start their daemons with Debian's defaults (postgrey and dnsmasq would
  # listen beyond loopback); we start them ourselves below. Only add a policy if none exists.
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  apt_install "${missing[@]}"
}

stop_postfix() {
  if postfix status >/dev/null 2>&1; then postfix stop >/dev/null 2>&1; fi
}

stop_all() {
  stop_postfix
  stop_by_pidfile "$POSTGREY_PIDFILE" postgrey
  stop_by_pidfile "$DNSMASQ_PIDFILE" dnsmasq
}

configure_postfix() {
  local main_cf=/etc/postfix/main.cf map
  # Never clobber a Postfix configuration someone else wrote: this machine may be a real MTA.
  if [[ -s $main_cf ]] && ! grep -q "^$MARKER" "$main_cf"; then
    fail "$main_cf was not written by this script; move it away to let the fixture use Postfix"
  fi
  getent passwd vmail >/dev/null ||
    useradd --system --no-create-home --home-dir "$MAILBOX_BASE" --shell /usr/sbin/nologin vmail
  install -d -o vmail -g vmail -m 0750 "$MAILBOX_BASE"
  install -d -m 0755 "$MAPS_DIR"
  sed -e "s/__VMAIL_UID__/$(id -u vmail)/" -e "s/__VMAIL_GID__/$(id -g vmail)/" \
    "$HERE/main.cf" >"$main_cf"
  for map in virtual_mailboxes virtual_aliases greylisted_recipients; do
    install -m 0644 "$HERE/$map" "$MAPS_DIR/$map"
    postmap "hash:$MAPS_DIR/$map"
  done
  # A cidr: table is read as text, no postmap.
  install -m 0644 "$HERE/blocked_clients" "$MAPS_DIR/blocked_clients"
  # Debian's master.cf chroots the daemons, which needs copies of /etc files that only its init
  # script makes; the fixture runs them unchrooted instead.
  postconf -F '*/*/chroot = n'
  # SMTP on 127.0.0.25:25 only, in place of Debian's "smtp inet" on every inet_interfaces address.
  postconf -MX smtp/inet
  postconf -M "$MX_ADDRESS:smtp/inet = $MX_ADDRESS:smtp inet n - n - - smtpd"
  # Real MX hosts offer STARTTLS, so the fixture does too, with Debian's self-signed snakeoil
  # certificate (make-ssl-cert keeps an existing one); without it, plain SMTP only.
  local cert=/etc/ssl/certs/ssl-cert-snakeoil.pem key=/etc/ssl/private/ssl-cert-snakeoil.key
  [[ -r $cert && -r $key ]] || make-ssl-cert generate-default-snakeoil || note "no snakeoil certificate: STARTTLS off"
  if [[ -r $cert && -r $key ]]; then
    postconf -e smtpd_tls_security_level=may "smtpd_tls_cert_file=$cert" "smtpd_tls_key_file=$key"
  fi
  postfix check || fail "postfix check found errors in the configuration"
}

start_dnsmasq() {
  # --conf-file makes dnsmasq read our file only, never /etc/dnsmasq.conf.
  dnsmasq --conf-file="$HERE/dnsmasq.conf" || fail "dnsmasq did not start (see /var/log/mailverify-dnsmasq.log)"
}

start_postgrey() {
  install -d -o postgrey -g postgrey -m 0750 "$POSTGREY_DBDIR"
  # --auto-whitelist-clients=0: repeated test runs from 127.0.0.1 must never whitelist the client,
  # or grey@ would stop being greylisted after a few runs.
  postgrey --inet="$MX_ADDRESS:$POLICY_PORT" --delay="$GREYLIST_DELAY_S" --auto-whitelist-clients=0 \
    --dbdir="$POSTGREY_DBDIR" --pidfile="$POSTGREY_PIDFILE" --user=postgrey --group=postgrey \
    --daemonize || fail "postgrey did not start"
}

# A raw SMTP conversation: alice exists, nobody is rejected 550 5.1.1, grey is greylisted 450.
check_smtp() {
  # A fresh sender each run: postgrey keys on (client, sender, recipient); letters keep postgrey
  # from folding the random part away (it replaces all-digit words in senders).
  local sender="setup.check.x$RANDOM$RANDOM@verifier.test" transcript
  transcript=$(smtp_transcript "$MX_ADDRESS" "EHLO setup.check" "MAIL FROM:<$sender>" "RCPT TO:<alice@mailbox.test>" \
    "RCPT TO:<nobody@mailbox.test>" "RCPT TO:<anyone@catchall.test>" "RCPT TO:<grey@mailbox.test>" "QUIT")
  expect_replies "Postfix on $MX_ADDRESS:25" "$transcript" '^220 ' '^250 2\.1\.5 Ok' '^550 5\.1\.1 <nobody@mailbox\.test>' \
    '^450 4\.2\.0 <grey@mailbox\.test>.*Greylisted' '^221 '
  [[ $(grep -c '^250 2\.1\.5 Ok' <<<"$transcript") -eq 2 ]] ||
    fail "Postfix did not accept both alice@mailbox.test and anyone@catchall.test: $transcript"
}

# smtp_transcript from a given local address (bash's /dev/tcp cannot choose one): node is on every
# machine that runs the tests.
smtp_transcript_from() {
  local source=$1 host=$2
  shift 2
  node -e '
    const [source, host, ...commands] = process.argv.slice(1);
    const socket = require("node:net").connect({ host, port: 25, localAddress: source });
    socket.on("data", (data) => process.stdout.write(data.toString().replace(/\r/g, "")));
    socket.on("error", (error) => { console.log(error.message); process.exit(0); });
    socket.on("connect", async () => {
      for (const command of commands) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        socket.write(`${command}\r\n`);
      }
      setTimeout(() => socket.destroy(), 1000);
    });
  ' "$source" "$host" "$@" || true
}

# The blocklisted client: every RCPT from 127.0.0.77 is refused 554 naming the blocklist.
check_blocked_client() {
  local transcript
  transcript=$(smtp_transcript_from 127.0.0.77 "$MX_ADDRESS" "EHLO setup.check" "MAIL FROM:<setup.check@verifier.test>" "RCPT TO:<alice@mailbox.test>" "QUIT")
  expect_replies "Postfix on $MX_ADDRESS:25 from 127.0.0.77" "$transcript" '^220 ' '^554 5\.7\.1 .*blocked using zen\.spamhaus\.org' '^221 '
}

start_fixture() {
  install_packages
  stop_all
  configure_postfix
  start_dnsmasq
  start_postgrey
  wait_for_tcp "$MX_ADDRESS" "$POLICY_PORT"
  postfix start >/dev/null 2>&1 || fail "postfix did not start (see /var/log/postfix-mailverify.log)"
  wait_for_tcp "$MX_ADDRESS" 25
  check_mx_answer "$DNS_ADDRESS" "$DNS_PORT" mailbox.test
  check_smtp
  check_blocked_client
  echo "postfix fixture: ready: SMTP $MX_ADDRESS:25 (mailbox.test: alice, bob, grey greylisted ${GREYLIST_DELAY_S}s; catchall.test; clients 127.0.0.77 and .78 refused as blocklisted), DNS $DNS_ADDRESS:$DNS_PORT"
}

fixture_main "$@"
