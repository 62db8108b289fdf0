#!/usr/bin/env bash
# The whole test suite: type check, format and lint (Biome), then every test on SQLite, then every
# test on PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."
# a Node.js Formgate supports first on PATH, so every child (tsc, tsx, the tests' servers) runs on it
. scripts/node-env.sh

npm run --silent typecheck
# Style is checked, not reviewed: `npm run format` fixes what this finds.
npx --no-install biome check --error-on-warnings .

mapfile -t files < <(find test -name '*.test.ts' | sort)
run_suite() {
  FORMGATE_TEST_DB="$1" node --import tsx --test --test-reporter=spec --test-concurrency="${FORMGATE_TEST_CONCURRENCY:-3}" "${files[@]}"
}

echo "=== Formgate test suite on SQLite ==="
run_suite sqlite

pg_url="${FORMGATE_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/test}"
if node -e "const c=new (require('pg').Client)({connectionString:process.argv[1],connectionTimeoutMillis:3000});c.connect().then(()=>c.end()).catch(()=>process.exit(1))" "$pg_url"; then
  echo "=== Formgate test suite on PostgreSQL ($pg_url) ==="
  run_suite postgres
else
  echo "################################################################" >&2
  echo "### SKIPPED: the PostgreSQL suite did not run." >&2
  echo "### No PostgreSQL server answered at $pg_url" >&2
  echo "### (set FORMGATE_TEST_PG_URL to point at one)." >&2
  echo "################################################################" >&2
fi
