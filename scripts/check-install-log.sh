#!/usr/bin/env bash
# Fails when `npm ci` printed a warning a user would worry about (a deprecated package, an engine
# mismatch, a peer conflict, a vulnerability count). Let through: npm's complaint about a `nodedir`
# setting in the machine's own npm configuration (~/.npmrc), which is not the project's and which a
# user's machine does not have; and, when npm itself ran on a Node.js older than Formgate's and the
# build said it switched to a fetched one (scripts/node-env.sh's line, "…so this runs on Node.js…"),
# npm's EBADENGINE lines: they are true of the Node.js npm runs on, not of the one Formgate runs on.
set -euo pipefail
log="$1"
allowed='Unknown (user|env) config "nodedir"'
if grep -qE '^formgate: Node\.js v[0-9.]+ .* is older than [0-9.]+, so this runs on Node\.js v[0-9.]+ ' "$log"; then
  allowed="$allowed|^npm warn EBADENGINE "
fi
worrying="$(grep -iE 'warn|deprecated|vulnerabilit|EBADENGINE|ERESOLVE' "$log" | grep -vE "$allowed" | grep -vE '^formgate: Node\.js v.* so this runs on Node\.js' || true)"
if [ -n "$worrying" ]; then
  echo "npm ci printed warnings a user would worry about:" >&2
  echo "$worrying" >&2
  exit 1
fi
echo "npm ci printed no warning (the machine's own nodedir setting and, on an old Node.js, npm's engine notices aside)"
