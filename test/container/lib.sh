# Helpers shared by test/container/*.sh: failing, timing steps, waiting with a deadline, free
# ports, HTTP with JSON, and podman with the flags this machine needs (sourced, not run).

fail() { echo "FAIL: $*" >&2; exit 1; }

# step NAME: closes the previous step's timer and opens this one; `step_end` closes the last.
STEP_NAME=''
STEP_START=0
TIMINGS=()
step() {
  step_end
  STEP_NAME="$1"
  STEP_START=$(date +%s%N)
  echo "=== container test: $1"
}
step_end() {
  [ -n "$STEP_NAME" ] || return 0
  local ms=$((($(date +%s%N) - STEP_START) / 1000000))
  TIMINGS+=("$(printf '%6d.%01d s  %s' $((ms / 1000)) $((ms % 1000 / 100)) "$STEP_NAME")")
  STEP_NAME=''
}

# wait_until SECONDS WHAT COMMAND…: runs COMMAND until it succeeds, failing after SECONDS.
wait_until() {
  local seconds="$1" what="$2" deadline
  shift 2
  deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || fail "$what: not within ${seconds} s"
    sleep 0.3
  done
}

# free_ports N: N loopback TCP ports nobody listens on (held together while picked, so distinct).
free_ports() {
  python3 -c '
import socket, sys
held = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in held: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in held))' "$1"
}

# json EXPRESSION: evaluates a JavaScript expression on the JSON read from stdin (bound to `j`).
json() { node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); const v = eval(process.argv[1]); process.stdout.write(typeof v === "string" ? v : JSON.stringify(v));' "$1"; }

# pm_run: `podman run` with the flags every container needs here (runc; the host's network).
pm_run() { podman run --runtime runc --network=host "$@"; }
