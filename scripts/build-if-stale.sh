# Builds dist/ (scripts/build.mjs) only when it is missing or a source is newer than it, so that
# `npm start` on an up-to-date checkout goes straight to the server. Sourced by `npm start` after
# scripts/node-env.sh, from the project folder.
# NOTE: dist/main.js is the mark: a failed build leaves no dist/program.js (build.mjs empties dist/ first).
if [ ! -f dist/main.js ] || [ ! -f dist/program.js ] ||
  [ -n "$(find src scripts/build.mjs package.json package-lock.json tsconfig.json -newer dist/main.js -print -quit 2>/dev/null)" ]; then
  node scripts/build.mjs || exit 1
fi
