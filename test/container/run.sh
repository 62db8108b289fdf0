#!/usr/bin/env bash
# The container test, run by .ci/run (root, podman, a few minutes; not part of `npm test`): builds
# the Dockerfile unchanged and runs the image alone, then brings up the PostgreSQL compose shape
# behind Caddy and submits to it. This machine has no image registry, so the base images are made
# here under the names the Dockerfile and compose pull (base-images.sh). Prints each step's time.
# Removes the containers, volumes, images and database it made; keeps the cached Debian tarball.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$REPO"
source test/container/lib.sh
source test/container/base-images.sh
source test/container/image.sh
source test/container/compose.sh

step "tools (podman, runc, mmdebstrap, podman-compose, caddy)"
missing=0
for tool in podman mmdebstrap podman-compose caddy runc; do command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || missing=1; done
if [ "$missing" = 1 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc mmdebstrap podman-compose caddy >/dev/null
fi
command -v node >/dev/null || PATH="$(bash scripts/install-node.sh 24):$PATH"

WORK="$(mktemp -d /tmp/formgate-container.XXXXXX)"
# NOTE: what podman needs on a machine without systemd, such as this one: cgroupfs, no default
# ulimits, events to a file rather than journald, and runc (Debian's podman here has no crun).
cat >"$WORK/containers.conf" <<'CONF'
[containers]
default_ulimits = []

[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
events_logger = "file"
CONF
export CONTAINERS_CONF="$WORK/containers.conf"
IMAGE=localhost/formgate:latest
SINGLE="formgate-test-$$"
SINGLE_VOLUME="formgate-test-data-$$"
COMPOSE_PROJECT="formgatetest$$"
COMPOSE_DATABASE="formgate_container_$$"
COMPOSE_DIR="$WORK/compose-postgres"
# every image and volume that is not in the store now was made by this test, and goes at the end
# (the compose instances' /data volumes are anonymous)
IMAGES_BEFORE="$(podman images --all --quiet --no-trunc | sort -u)"
VOLUMES_BEFORE="$(podman volume ls --quiet | sort -u)"

cleanup() {
  local code=$?
  step_end
  podman ps -a --format '{{.Names}}' | grep -E "^($SINGLE|${COMPOSE_PROJECT}(sqlite)?_.*)$" | xargs -r podman rm -f -v -t 0 >/dev/null 2>&1 || true
  podman volume ls --quiet | sort -u | comm -13 <(echo "$VOLUMES_BEFORE") - | xargs -r podman volume rm -f >/dev/null 2>&1 || true
  podman network rm -f "${COMPOSE_PROJECT}_default" "${COMPOSE_PROJECT}sqlite_default" >/dev/null 2>&1 || true
  podman images --all --quiet --no-trunc | sort -u | comm -13 <(echo "$IMAGES_BEFORE") - | xargs -r podman rmi -f >/dev/null 2>&1 || true
  psql -q -h 127.0.0.1 -U postgres -c "DROP DATABASE IF EXISTS $COMPOSE_DATABASE WITH (FORCE)" >/dev/null 2>&1 || true
  redis-cli -h 127.0.0.1 --scan --pattern "$COMPOSE_PROJECT:*" 2>/dev/null | xargs -d '\n' -r redis-cli -h 127.0.0.1 del >/dev/null 2>&1 || true
  rm -rf "$WORK"
  echo "=== container test timings"
  printf '%s\n' "${TIMINGS[@]}"
  ((code == 0)) && echo "=== container test passed" || echo "=== container test FAILED"
  exit "$code"
}
trap cleanup EXIT

step "base images (Debian by mmdebstrap, Node 24, caddy) under the official names"
make_base_images

step "docker build of the Dockerfile, unchanged"
# --format docker: OCI images have no HEALTHCHECK
podman build --quiet --format docker --network=host --pull=never -t "$IMAGE" . >/dev/null || fail "podman build"
echo "    $(podman image inspect "$IMAGE" --format '{{.Size}}' | awk '{printf "%.0f MB", $1 / 1e6}'), of which /app: $(pm_run --rm "$IMAGE" du -sh /app 2>/dev/null | cut -f1)"

step "the image alone: health, user, CLI, submit, a new container on the volume, stop"
run_single

step "compose, SQLite shape: one instance, a named volume"
run_compose_sqlite

step "compose, PostgreSQL shape: two instances, Redis, Caddy with TLS"
run_compose_postgres
