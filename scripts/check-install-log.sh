#!/usr/bin/env bash
# Fails when `npm ci` printed a warning a user would worry about (a deprecated package, an engine
# mismatch, a peer conflict, a vulnerability count). The one line let through is npm's complaint
# about a `nodedir` setting in the machine's own npm configuration (~/.npmrc), which is not the
# project's and which a user's machine does not have.
set -euo pipefail
log="$1"
worrying="$(grep -iE 'warn|deprecated|vulnerabilit|EBADENGINE|ERESOLVE' "$log" | grep -vE 'Unknown (user|env) config "nodedir"' || true)"
if [ -n "$worrying" ]; then
  echo "npm ci printed warnings a user would worry about:" >&2
  echo "$worrying" >&2
  exit 1
fi
echo "npm ci printed no warning (the machine's own nodedir setting aside)"
