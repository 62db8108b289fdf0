#!/usr/bin/env bash
# The n8n nodes inside a real n8n (not part of CI: n8n is about 1 GB and installs in minutes).
# Installs n8n (N8N_VERSION, default below) into a temporary folder, builds this package, loads it
# as a custom extension (N8N_CUSTOM_EXTENSIONS), starts a Formgate on loopback with a fresh SQLite
# database, an account, a form, an automation-tool key and three submissions, imports the
# credential and a workflow (Manual Trigger → Formgate: get many submissions, limit 2) and runs it
# with `n8n execute`, then checks that the output holds the two newest submissions, newest first.
#
#   bash integrations/n8n-nodes-formgate/scripts/e2e-n8n.sh        (from the project folder)
#
# Needs: the project's `npm ci` done, Node.js 24 (scripts/node-env.sh fetches it), the npm registry.
# N8N_E2E_DIR keeps n8n installed between runs (default: a temporary folder, removed at the end).
# NOTE: n8n's install runs native build steps that download from outside the npm registry (e.g.
# @confluentinc/kafka-javascript fetches zlib from zlib.net); on a machine that reaches only the npm
# registry (this project's CI and developer machines) `npm install n8n` fails there, so this script
# is for a machine with internet access. It has not yet completed a run.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
. scripts/node-env.sh
n8n_version="${N8N_VERSION:-2.41.1}"
work="${N8N_E2E_DIR:-$(mktemp -d /tmp/n8n-e2e.XXXXXX)}"
mkdir -p "$work"
formgate_pid=""
cleanup() {
  [ -n "$formgate_pid" ] && kill "$formgate_pid" 2>/dev/null || true
  [ -z "${N8N_E2E_DIR:-}" ] && rm -rf "$work"
}
trap cleanup EXIT

echo "=== n8n $n8n_version into $work ==="
if [ ! -x "$work/node_modules/.bin/n8n" ] || [ "$(node -p "require('$work/node_modules/n8n/package.json').version")" != "$n8n_version" ]; then
  [ -f "$work/package.json" ] || echo '{"name":"n8n-e2e","version":"1.0.0","private":true}' > "$work/package.json"
  (cd "$work" && npm install --no-audit --no-fund --loglevel=error "n8n@$n8n_version")
fi

echo "=== the package, built ==="
(cd "$here" && { [ -d node_modules/n8n-workflow ] || npm ci --ignore-scripts --no-audit --no-fund --loglevel=error; } && npm run --silent build)
# n8n loads a custom extension folder's packages as installed ones: the package under node_modules
custom="$work/custom"
rm -rf "$custom" && mkdir -p "$custom/node_modules/n8n-nodes-formgate"
cp -r "$here/package.json" "$here/index.js" "$here/dist" "$custom/node_modules/n8n-nodes-formgate/"
echo '{"name":"custom","version":"1.0.0","private":true,"dependencies":{"n8n-nodes-formgate":"*"}}' > "$custom/package.json"

echo "=== a Formgate with a form, a key and three submissions ==="
seed="$work/seed.json"
node --import tsx "$here/scripts/e2e-formgate.ts" > "$seed" &
formgate_pid=$!
for _ in $(seq 1 300); do
  if [ -s "$seed" ] && grep -q '"ready"' "$seed"; then break; fi
  kill -0 "$formgate_pid" 2>/dev/null || { echo "Formgate did not start" >&2; exit 1; }
  sleep 0.2
done
base_url="$(node -p "JSON.parse(require('fs').readFileSync('$seed','utf8')).baseUrl")"
key="$(node -p "JSON.parse(require('fs').readFileSync('$seed','utf8')).key")"
form_id="$(node -p "JSON.parse(require('fs').readFileSync('$seed','utf8')).formId")"
newest="$(node -p "JSON.parse(require('fs').readFileSync('$seed','utf8')).submissionIds.slice(-2).reverse().join(',')")"

echo "=== the credential and the workflow, imported; the workflow run with n8n execute ==="
export N8N_USER_FOLDER="$work/n8n-home" N8N_CUSTOM_EXTENSIONS="$custom/node_modules/n8n-nodes-formgate" \
  N8N_ENCRYPTION_KEY="e2e-only-key" DB_TYPE=sqlite N8N_DIAGNOSTICS_ENABLED=false N8N_RUNNERS_ENABLED=true \
  N8N_BLOCK_ENV_ACCESS_IN_NODE=false N8N_SECURE_COOKIE=false N8N_LOG_LEVEL=warn
rm -rf "$N8N_USER_FOLDER" && mkdir -p "$N8N_USER_FOLDER"
cat > "$work/credentials.json" <<JSON
[{"id":"fgcred0000000001","name":"Formgate (e2e)","type":"formgateApi","data":{"baseUrl":"$base_url","apiKey":"$key"}}]
JSON
cat > "$work/workflow.json" <<JSON
{
  "id": "fgworkflow000001",
  "name": "Formgate e2e",
  "active": false,
  "nodes": [
    {"id": "a1", "name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}},
    {"id": "a2", "name": "Formgate", "type": "CUSTOM.formgate", "typeVersion": 1, "position": [220, 0],
     "parameters": {"resource": "submission", "operation": "getAll", "formId": "$form_id", "returnAll": false, "limit": 2},
     "credentials": {"formgateApi": {"id": "fgcred0000000001", "name": "Formgate (e2e)"}}}
  ],
  "connections": {"Start": {"main": [[{"node": "Formgate", "type": "main", "index": 0}]]}},
  "settings": {}
}
JSON
n8n="$work/node_modules/.bin/n8n"
"$n8n" import:credentials --input="$work/credentials.json"
"$n8n" import:workflow --input="$work/workflow.json"
out="$work/run.json"
"$n8n" execute --id=fgworkflow000001 --rawOutput > "$out" || { echo "n8n execute failed:" >&2; cat "$out" >&2; exit 1; }

node -e '
const fs = require("fs");
const text = fs.readFileSync(process.argv[1], "utf8");
const run = JSON.parse(text.slice(text.indexOf("{")));
const runs = run.data.resultData.runData.Formgate;
if (!runs || runs[0].error) { console.error("the Formgate node failed:", JSON.stringify(runs?.[0]?.error ?? run, null, 2)); process.exit(1); }
const ids = runs[0].data.main[0].map((item) => item.json.id).join(",");
if (ids !== process.argv[2]) { console.error(`expected the two newest submissions ${process.argv[2]}, got ${ids}`); process.exit(1); }
console.log(`n8n ran the Formgate node: ${ids} (the two newest, newest first)`);
' "$out" "$newest"
echo "=== e2e passed ==="
