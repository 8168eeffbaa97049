#!/usr/bin/env bash
# Mail hosts whose port 25 drops every SYN, as a customer's MX may (test/e2e/port25-suspect.test.ts):
# timeouts there must make the node only suspect its port 25, never call it blocked for everyone.
# Called by scripts/test-setup.sh; needs root and iptables. Idempotent.
#   dropped-smtp.sh         add the DROP rules (once each)
#   dropped-smtp.sh stop    remove them (every copy)
set -euo pipefail

HOSTS=(127.0.66.1 127.0.66.2 127.0.66.3)
rule() { echo OUTPUT -d "$1/32" -p tcp --dport 25 -j DROP; }

if [ "${1:-start}" = stop ]; then
  command -v iptables >/dev/null || exit 0
  for host in "${HOSTS[@]}"; do
    # shellcheck disable=SC2046 # the rule is words
    while iptables -w 5 -D $(rule "$host") 2>/dev/null; do :; done
  done
  exit 0
fi

for host in "${HOSTS[@]}"; do
  # shellcheck disable=SC2046 # the rule is words
  iptables -w 5 -C $(rule "$host") 2>/dev/null || iptables -w 5 -I $(rule "$host")
done
