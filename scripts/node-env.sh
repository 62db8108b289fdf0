# Puts a Node.js that Formgate supports first on PATH, as Go's `toolchain` line does for Go: when
# the machine's `node` is older than package.json's `engines` (22.12), the newest Node.js of the line
# package.json names in `nodeToolchain` (24) is fetched from the npm registry (scripts/install-node.sh)
# into ${FORMGATE_NODE_CACHE:-~/.cache/formgate-node} and used instead, saying so in one line on stderr.
# FORMGATE_NODE_TOOLCHAIN=local turns that off: a too-old Node.js then stops here with
# src/cli/node-version.ts's message. Sourced (`. scripts/node-env.sh`) by the npm scripts,
# scripts/test.sh and scripts/node.sh, from the project folder or with $formgate_root set to it.
# NOTE: POSIX sh (npm runs scripts with /bin/sh, dash on Debian), and sourced: it exits its caller on
# failure and names everything it defines _fg_. Fast when nothing is fetched: the registry is asked
# which 24.x is the newest at most once a day (the .checked-<line> stamp), and a cached Node.js is
# used without it when the registry does not answer.
_fg_root="${formgate_root:-.}"

# true when major.minor $1 is older than major.minor $2
_fg_older() {
  _fg_a="${1#*.}" _fg_b="${2#*.}"
  [ "${1%%.*}" -lt "${2%%.*}" ] || { [ "${1%%.*}" -eq "${2%%.*}" ] && [ "${_fg_a%%.*}" -lt "${_fg_b%%.*}" ]; }
}

# the newest Node.js of line $2 in cache $1 (its folder), or nothing
_fg_newest_cached() {
  for _fg_dir in "$1/$2".*; do
    if [ -x "$_fg_dir/package/bin/node" ]; then printf '%s\n' "$_fg_dir"; fi
  done | sort -V | tail -n 1
}

_fg_choose() {
  case "${FORMGATE_NODE_TOOLCHAIN:-auto}" in
    auto | local) ;;
    *) echo "formgate: FORMGATE_NODE_TOOLCHAIN is auto (the default) or local, not '$FORMGATE_NODE_TOOLCHAIN'" >&2; return 2 ;;
  esac
  _fg_min="$(sed -n 's/^ *"node": *">=\([0-9][0-9.]*\)".*/\1/p' "$_fg_root/package.json")"
  _fg_line="$(sed -n 's/^ *"nodeToolchain": *"\([0-9][0-9]*\)".*/\1/p' "$_fg_root/package.json")"
  _fg_node="$(command -v node || true)"
  _fg_have="$( [ -n "$_fg_node" ] && node --version 2>/dev/null || true)"
  _fg_have="${_fg_have#v}"
  [ -n "$_fg_have" ] && ! _fg_older "$_fg_have" "$_fg_min" && return 0

  if [ "${FORMGATE_NODE_TOOLCHAIN:-auto}" = local ]; then
    # the words of src/cli/node-version.ts (test/node-version.test.ts holds the copies together)
    echo "Formgate needs Node.js 22.12 or later (a maintained line: 22, 24 or 26); this is v${_fg_have:-(no node on PATH)}." >&2
    echo 'scripts/install-node.sh 24 fetches the newest 24.x from the npm registry: export PATH="$(bash scripts/install-node.sh 24):$PATH"' >&2
    return 1
  fi

  _fg_cache="${FORMGATE_NODE_CACHE:-$HOME/.cache/formgate-node}"
  _fg_stamp="$_fg_cache/.checked-$_fg_line"
  _fg_dir="$(_fg_newest_cached "$_fg_cache" "$_fg_line")"
  _fg_note=""
  if [ -z "$_fg_dir" ] || [ -z "$(find "$_fg_stamp" -mmin -1440 2>/dev/null)" ]; then
    if _fg_bin="$(FORMGATE_NODE_CACHE="$_fg_cache" bash "$_fg_root/scripts/install-node.sh" "$_fg_line")"; then
      _fg_dir="${_fg_bin%/package/bin}"
    elif [ -n "$_fg_dir" ]; then
      _fg_note=" (the registry did not answer: the newest one cached)"
    else
      echo "formgate: Node.js v${_fg_have:-(none)} is older than $_fg_min and Node.js $_fg_line could not be fetched from the npm registry; install Node.js $_fg_min or later, or try again online" >&2
      return 1
    fi
    # asked (or tried) once a day, not on every start
    touch "$_fg_stamp" 2>/dev/null || true
  fi
  _fg_from="$(sed -n 's/.*"name": *"\([^"]*\)".*/\1/p' "$_fg_dir/package/package.json" | head -n 1)"
  case "${npm_lifecycle_event:-}" in
    prepare | install | postinstall) _fg_note="$_fg_note; npm's EBADENGINE lines above are about the Node.js npm itself runs on" ;;
  esac
  echo "formgate: Node.js v${_fg_have:-(none)}${_fg_node:+ ($_fg_node)} is older than $_fg_min, so this runs on Node.js v${_fg_dir##*/} from the npm registry's ${_fg_from:-node} package, in $_fg_dir$_fg_note (FORMGATE_NODE_TOOLCHAIN=local turns this off)" >&2
  PATH="$_fg_dir/package/bin:$PATH"
  export PATH
}

_fg_choose || exit $?
unset -f _fg_older _fg_newest_cached _fg_choose
