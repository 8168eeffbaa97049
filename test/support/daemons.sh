# shellcheck shell=bash
# Shell helpers of the real-daemon fixtures' setup scripts (postfix/setup.sh, mtas/setup.sh):
# sourced by them, never run. The sourcing script sets FIXTURE to its name and DAEMONS to what it
# runs (for messages), defines start_fixture and stop_all, and ends with `fixture_main "$@"`.

fail() {
  echo "$FIXTURE fixture: FAILED: $*" >&2
  exit 1
}
note() { echo "$FIXTURE fixture: $*" >&2; }

is_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# apt-get install, with apt-get update only when the package lists are missing or stale (the
# first try fails then).
apt_install() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" ||
    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@"; } ||
    fail "apt-get could not install $*"
}

# Stop a daemon we started before (by its pid file) and wait until it is gone. The pid must still
# belong to that program: after a reboot a stale pid file may name an unrelated process.
stop_by_pidfile() {
  local pidfile=$1 program=$2 pid
  [[ -s $pidfile ]] || return 0
  pid=$(<"$pidfile")
  if grep -qa "$program" "/proc/$pid/cmdline" 2>/dev/null && kill "$pid" 2>/dev/null; then
    for _ in {1..50}; do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$pidfile"
}

# Wait until something accepts TCP connections on host:port (a daemon may take a moment).
wait_for_tcp() {
  local host=$1 port=$2
  for _ in {1..50}; do
    (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null && return 0
    sleep 0.1
  done
  fail "nothing listens on $host:$port"
}

# Ask the DNS server at host:port for the MX of a name over UDP; expect our query id back,
# NOERROR and at least one answer.
check_mx_answer() {
  local host=$1 port=$2 name=$3 question='' label reply
  for label in ${name//./ }; do question+=$(printf '\\x%02x%s' "${#label}" "$label"); done
  reply=$(
    exec 3<>"/dev/udp/$host/$port"
    # shellcheck disable=SC2059 # the question is made of escapes for printf to turn into bytes
    printf "\\x4d\\x56\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00${question}\\x00\\x00\\x0f\\x00\\x01" >&3
    timeout 3 dd bs=512 count=1 <&3 2>/dev/null | od -An -tx1 -N8 | tr -d ' \n'
  ) || true
  # Header: our id 4d56, rcode (low nibble of byte 4) NOERROR, at least one answer record.
  [[ ${reply:0:4} == 4d56 && ${reply:7:1} == 0 && ${#reply} -eq 16 && $((16#${reply:12:4})) -ge 1 ]] ||
    fail "the DNS server on $host:$port did not answer the MX of $name (header '${reply:-nothing}')"
}

# A raw SMTP conversation with host:25, one command at a time (some servers refuse commands sent
# before the previous reply); prints every reply line, without carriage returns.
smtp_transcript() {
  local host=$1 command
  shift
  (
    exec 3<>"/dev/tcp/$host/25"
    for command in "$@"; do
      printf '%s\r\n' "$command" >&3
      sleep 0.2
    done
    timeout 5 cat <&3
  ) | tr -d '\r' || true
}

# Fails unless each extended regex matches a line of the transcript.
expect_replies() {
  local server=$1 transcript=$2 expected
  shift 2
  for expected in "$@"; do
    grep -Eq "$expected" <<<"$transcript" || fail "$server did not answer as expected (/$expected/); it said: $transcript"
  done
}

# The command line of a setup script: start (the default) or stop, as root.
fixture_main() {
  [[ $EUID -eq 0 ]] || fail "run as root: sudo $0 ${1:-}"
  case ${1:-start} in
    start) start_fixture ;;
    stop)
      stop_all
      echo "$FIXTURE fixture: stopped $DAEMONS"
      ;;
    *) fail "usage: $0 [start|stop]" ;;
  esac
}
