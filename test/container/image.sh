# The image run alone, as `docker run` would: healthy, not root, the CLI inside it, a submission
# that outlives its container (the volume), and a stop well inside 10 s. Sourced by run.sh.

# api_as TOKEN METHOD URL [BODY]: the management API's answer (fails on an HTTP error).
api_as() {
  local token="$1" method="$2" url="$3" body=()
  [ -z "${4:-}" ] || body=(-H 'Content-Type: application/json' -d "$4")
  curl -sS --fail-with-body -X "$method" "$url" -H "Authorization: Bearer $token" "${body[@]}"
}

check_image_config() {
  local config
  config="$(podman image inspect "$IMAGE" --format '{{json .Config}}')"
  [ "$(json 'j.User' <<<"$config")" = node ] || fail "the image's user is not node: $config"
  json 'j.Env.includes("FORMGATE_HOST=0.0.0.0")' <<<"$config" | grep -qx true || fail "FORMGATE_HOST=0.0.0.0 missing: $config"
  json 'Object.keys(j.ExposedPorts).sort().join()' <<<"$config" | grep -qx '8080/tcp,8081/tcp' || fail "EXPOSE: $config"
  json 'Object.keys(j.Volumes).join()' <<<"$config" | grep -qx /data || fail "VOLUME: $config"
  podman image inspect "$IMAGE" --format '{{json .HealthCheck}}' | grep -q healthz || fail "no HEALTHCHECK (built without --format docker?)"
}

# start_single: a container of the image on the volume, on the test's loopback ports.
start_single() {
  pm_run -d --name "$SINGLE" -v "$SINGLE_VOLUME:/data" \
    -e FORMGATE_HOST=127.0.0.1 -e "FORMGATE_PORT=$SINGLE_API" -e "FORMGATE_SUBMIT_PORT=$SINGLE_SUBMIT" \
    "$IMAGE" >/dev/null 2>>"$WORK/podman.log"
  wait_until 40 "$SINGLE's HEALTHCHECK passing" podman healthcheck run "$SINGLE"
  podman inspect "$SINGLE" --format '{{.State.Health.Status}}' | grep -qx healthy || fail "$SINGLE is not healthy"
}

# stop_single_timed: `podman stop` (SIGTERM, SIGKILL after 10 s) must end it, cleanly, within 10 s.
stop_single_timed() {
  local started ms code
  started=$(date +%s%N)
  podman stop -t 10 "$SINGLE" >/dev/null 2>>"$WORK/podman.log"
  ms=$((($(date +%s%N) - started) / 1000000))
  code="$(podman inspect "$SINGLE" --format '{{.State.ExitCode}}')"
  echo "    podman stop took $ms ms, exit code $code"
  ((ms < 10000)) || fail "podman stop took $ms ms"
  [ "$code" = 0 ] || fail "exit code $code after SIGTERM: $(podman logs --tail 5 "$SINGLE" 2>&1)"
  podman logs "$SINGLE" 2>&1 | grep -q '"msg":"stopped"' || fail "no \"stopped\" line: the signal did not reach the server"
  podman rm "$SINGLE" >/dev/null 2>>"$WORK/podman.log"
}

run_single() {
  local cli=(podman exec "$SINGLE" node dist/main.js) ws token form id listed
  read -r SINGLE_API SINGLE_SUBMIT < <(free_ports 2)
  check_image_config
  podman volume create "$SINGLE_VOLUME" >/dev/null
  start_single
  [ "$(podman exec "$SINGLE" id -u)" != 0 ] || fail "the server runs as root"
  podman exec "$SINGLE" cat /proc/1/cmdline | tr '\0' ' ' | grep -q '^node .*dist/main.js serve' || fail "PID 1 is not the server"
  podman exec "$SINGLE" sh -c 'test ! -e node_modules/esbuild && test ! -e node_modules/@esbuild' || fail "esbuild, a build tool, is in the runtime image"
  ws="$("${cli[@]}" users create --email ops@example.com --password 'a long passphrase' --json | json 'j.workspace.id')"
  "${cli[@]}" workspaces set-plan --workspace "$ws" --plan BUNDLE_50000 --json >/dev/null
  token="$("${cli[@]}" tokens create --email ops@example.com --name ci --scopes forms:write,submissions:read --json | json 'j.token')"
  form="$(api_as "$token" POST "http://127.0.0.1:$SINGLE_API/public/v1/forms" "{\"workspaceId\":\"$ws\",\"name\":\"Contact\"}" | json 'j.id')"
  id="$(curl -sS --fail-with-body "http://127.0.0.1:$SINGLE_SUBMIT/$form" -H 'Content-Type: application/json' -H 'Accept: application/json' \
    -d '{"message":"kept in the volume"}' | json 'j.id')"
  stop_single_timed
  # a new container on the same volume: the submission is in the volume, not the container
  start_single
  listed="$(api_as "$token" GET "http://127.0.0.1:$SINGLE_API/public/v1/forms/$form/submissions" | json 'j.data.map((s) => s.id + " " + s.data.message).join("|")')"
  [ "$listed" = "$id kept in the volume" ] || fail "after a new container on the volume, the submissions are: $listed"
  stop_single_timed
}
