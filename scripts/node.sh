#!/bin/sh
# `node` on a Node.js Formgate supports (scripts/node-env.sh chooses it, fetching Node.js 24 when the
# machine's is too old), for what runs outside npm: the systemd unit's ExecStart, an operator's shell.
# Usage: /opt/formgate/scripts/node.sh dist/main.js serve. It execs node, so signals reach it directly.
formgate_root="$(dirname "$0")/.."
. "$formgate_root/scripts/node-env.sh"
exec node "$@"
