# The compose shapes of deploy/compose, brought up by podman-compose: SQLite (one instance, a named
# volume) and PostgreSQL (two instances behind Caddy with TLS, submitted to through Caddy).
# Sourced by run.sh.
# NOTE: there is no postgres or redis image here (no registry), and every container must use the
# host's network; so the host's own PostgreSQL (a fresh database) and Redis (a prefix of this
# run's own) stand in for those two services, and compose-for-host.py writes the file as this
# machine can run it. The Formgate image, Caddy (from Debian's caddy, under caddy:2), the
# Caddyfile, TLS from Caddy's own CA and the balancing over both instances are the real ones.

# via HOST URL-PATH [curl options…]: a request through Caddy, with TLS, for one of its names.
via() {
  local host="$1" path="$2"
  shift 2
  curl -sS --fail-with-body --cacert "$COMPOSE_DIR/root.crt" --resolve "$host:$HTTPS_PORT:127.0.0.1" "https://$host:$HTTPS_PORT$path" "$@"
}

# compose DIR PROJECT ARGS…: podman-compose on DIR's compose.host.yaml (the output goes to DIR/compose.log).
compose() {
  local dir="$1" project="$2"
  shift 2
  (cd "$dir" && podman-compose --podman-path "$REPO/test/container/podman-host-network.sh" \
    -p "$project" -f compose.host.yaml "$@") >>"$dir/compose.log" 2>&1 || fail "podman-compose $*: $(tail -20 "$dir/compose.log")"
}

# shape_copy SHAPE DIR: the shape's folder copied to DIR, as an operator would use it, and its
# compose file for this machine beside it (the values come from the environment).
shape_copy() {
  mkdir -p "$2"
  cp "deploy/compose/$1/"* "$2/"
  python3 test/container/compose-for-host.py "$2/compose.yaml" "$2/compose.host.yaml"
}

run_compose_sqlite() {
  local dir="$WORK/compose-sqlite" project="${COMPOSE_PROJECT}sqlite" mounts
  read -r API_PORT_1 SUBMIT_PORT_1 < <(free_ports 2)
  export API_PORT_1 SUBMIT_PORT_1
  shape_copy sqlite "$dir"
  echo "FORMGATE_PUBLIC_URL=http://localhost:$API_PORT_1" >"$dir/.env"
  compose "$dir" "$project" up -d --no-build
  wait_until 40 "the SQLite shape's HEALTHCHECK passing" podman healthcheck run "${project}_formgate_1"
  mounts="$(podman inspect "${project}_formgate_1" --format '{{range .Mounts}}{{.Name}}:{{.Destination}} {{end}}')"
  [[ "$mounts" == *"${project}_formgate-data:/data"* ]] || fail "the named volume is not at /data: $mounts"
  podman exec "${project}_formgate_1" node dist/main.js users create --email ops@example.com --json | json 'j.user.email' |
    grep -qx ops@example.com || fail "users create in the SQLite shape"
  podman exec "${project}_formgate_1" printenv FORMGATE_PUBLIC_URL | grep -qx "http://localhost:$API_PORT_1" || fail "FORMGATE_PUBLIC_URL from .env"
  compose "$dir" "$project" down -t 10
  echo "    healthy, the named volume at /data, an account made with the CLI"
}

# reached_both FORM TOKEN: one list request through Caddy, then whether each instance has logged one.
reached_both() {
  via "$FORMS_DOMAIN" "/public/v1/forms/$1/submissions" -H "Authorization: Bearer $2" -H 'X-Request-Id: container-test-list' >/dev/null || return 1
  for n in 1 2; do
    podman logs "${COMPOSE_PROJECT}_formgate-${n}_1" 2>&1 | grep -q '"reqId":"container-test-list"' || return 1
  done
}

run_compose_postgres() {
  local cli=(podman exec "${COMPOSE_PROJECT}_formgate-1_1" node dist/main.js) ws token form id ids n
  read -r HTTPS_PORT HTTP_PORT CADDY_ADMIN_PORT API_PORT_1 SUBMIT_PORT_1 API_PORT_2 SUBMIT_PORT_2 < <(free_ports 7)
  export HTTPS_PORT HTTP_PORT CADDY_ADMIN_PORT API_PORT_1 SUBMIT_PORT_1 API_PORT_2 SUBMIT_PORT_2
  export FORMS_DOMAIN=forms.localhost SUBMIT_DOMAIN=submit.localhost
  export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:5432/$COMPOSE_DATABASE" TEST_REDIS_PREFIX="$COMPOSE_PROJECT:"
  psql -q -h 127.0.0.1 -U postgres -c "CREATE DATABASE $COMPOSE_DATABASE" || fail "creating the database"
  shape_copy postgres "$COMPOSE_DIR"
  sed -e "s/^FORMS_DOMAIN=.*/FORMS_DOMAIN=$FORMS_DOMAIN/" -e "s/^SUBMIT_DOMAIN=.*/SUBMIT_DOMAIN=$SUBMIT_DOMAIN/" \
    -e "s/^FORMGATE_SECRET=.*/FORMGATE_SECRET=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')/" \
    -e "s/^POSTGRES_PASSWORD=.*/POSTGRES_PASSWORD=unused-the-host-database-trusts-loopback/" \
    deploy/compose/postgres/env.example >"$COMPOSE_DIR/.env"
  compose "$COMPOSE_DIR" "$COMPOSE_PROJECT" up -d --no-build

  for n in 1 2; do wait_until 60 "formgate-$n's HEALTHCHECK passing" podman healthcheck run "${COMPOSE_PROJECT}_formgate-${n}_1"; done
  # Caddy's root certificate, made on its first start (its own CA: the names are *.localhost)
  local root=/data/caddy/pki/authorities/local/root.crt
  wait_until 30 "Caddy's root certificate" podman exec "${COMPOSE_PROJECT}_caddy_1" test -s "$root"
  podman exec "${COMPOSE_PROJECT}_caddy_1" cat "$root" >"$COMPOSE_DIR/root.crt"
  wait_until 30 "/healthz through Caddy with TLS" via "$FORMS_DOMAIN" /healthz

  ws="$("${cli[@]}" users create --email ops@example.com --password 'a long passphrase' --json | json 'j.workspace.id')"
  "${cli[@]}" workspaces set-plan --workspace "$ws" --plan BUNDLE_50000 --json >/dev/null
  token="$("${cli[@]}" tokens create --email ops@example.com --name ci --scopes forms:write,submissions:read --json | json 'j.token')"
  form="$(via "$FORMS_DOMAIN" /public/v1/forms -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d "{\"workspaceId\":\"$ws\",\"name\":\"Contact\"}" | json 'j.id')"
  id="$(via "$SUBMIT_DOMAIN" "/$form" -H 'Content-Type: application/json' -H 'Accept: application/json' \
    -H 'X-Request-Id: container-test-submit' -d '{"message":"through Caddy"}' | json 'j.id')"
  # stored once, and listed by each instance directly (one of them is the other, whichever took it)
  for n in 1 2; do
    local port_var="API_PORT_$n"
    ids="$(api_as "$token" GET "http://127.0.0.1:${!port_var}/public/v1/forms/$form/submissions" | json 'j.data.map((s) => s.id).join()')"
    [ "$ids" = "$id" ] || fail "formgate-$n lists [$ids], not [$id]"
  done
  # Caddy balances: requests through it reach both instances. NOTE: Caddy's own health checks may
  # count a freshly started instance in a moment after its HEALTHCHECK passed (all requests go to
  # the other meanwhile), so requests go on, one at a time, until each instance has logged one.
  wait_until 30 "requests through Caddy reaching both instances" reached_both "$form" "$token"
  echo "    submission $id went through Caddy; listed by both instances; requests reached both"
  compose "$COMPOSE_DIR" "$COMPOSE_PROJECT" down -t 10
}
