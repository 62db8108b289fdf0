#!/usr/bin/env bash
# The whole test suite: type check, format and lint (Biome), then every test on SQLite, then on
# PostgreSQL every test that can tell the two apart (scripts/dialect-tests.mjs; the others, pure
# functions, templates and mail, would give the same answer twice), with no second set of screenshots.
set -euo pipefail
cd "$(dirname "$0")/.."
# a Node.js Formgate supports first on PATH, so every child (tsc, tsx, the tests' servers) runs on it
. scripts/node-env.sh

# Every test file is a process of its own that loads the program anew: Node.js keeps what it compiled
# (about a seventh of each file's start), and so do the servers and commands the tests start.
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$PWD/node_modules/.cache/node-compile-cache}"

npm run --silent typecheck
# Style is checked, not reviewed: `npm run format` fixes what this finds.
npx --no-install biome check --error-on-warnings .

mapfile -t files < <(find test -name '*.test.ts' | sort)
mapfile -t dialect_files < <(node scripts/dialect-tests.mjs "${files[@]}")
# (a failure inside <(…) does not stop the script: an empty list must, or node would look for tests itself)
[ "${#dialect_files[@]}" -gt 0 ] || { echo "scripts/dialect-tests.mjs found no test that reads the database" >&2; exit 1; }
run_suite() {
  FORMGATE_TEST_DB="$1" node --import tsx --test --test-reporter=spec --test-concurrency="${FORMGATE_TEST_CONCURRENCY:-3}" "${@:2}"
}

echo "=== Formgate test suite on SQLite (${#files[@]} files) ==="
run_suite sqlite "${files[@]}"

pg_url="${FORMGATE_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/test}"
if node -e "const c=new (require('pg').Client)({connectionString:process.argv[1],connectionTimeoutMillis:3000});c.connect().then(()=>c.end()).catch(()=>process.exit(1))" "$pg_url"; then
  echo "=== Formgate test suite on PostgreSQL ($pg_url): the ${#dialect_files[@]} files that can tell the databases apart ==="
  # each test's database is dropped at the run's end, not amid it (test/helpers/database.ts says why)
  export FORMGATE_TEST_RUN="r$$$(date +%s)"
  trap 'node --import tsx test/helpers/drop-run-databases.ts' EXIT
  FORMGATE_TEST_SCREENSHOTS=off run_suite postgres "${dialect_files[@]}"
else
  echo "################################################################" >&2
  echo "### SKIPPED: the PostgreSQL suite did not run." >&2
  echo "### No PostgreSQL server answered at $pg_url" >&2
  echo "### (set FORMGATE_TEST_PG_URL to point at one)." >&2
  echo "################################################################" >&2
fi
