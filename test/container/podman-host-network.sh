#!/usr/bin/env bash
# Stands for podman under podman-compose (--podman-path). Debian bookworm's podman-compose 1.0.3
# adds `--net <project>_default --network-alias <service>` to every container, even one with
# `network_mode: host`, and podman refuses the pair ("cannot set multiple networks without bridge
# network mode"); later podman-compose releases leave it out. This drops it when the host's network is asked for.
args=("$@")
host=0
for ((i = 0; i < ${#args[@]}; i++)); do
  [ "${args[i]}" = --network ] && [ "${args[i + 1]:-}" = host ] && host=1
done
[ "$host" = 1 ] || exec podman "$@"
kept=()
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --net | --network-alias) i=$((i + 1)) ;;
    *) kept+=("${args[i]}") ;;
  esac
done
exec podman "${kept[@]}"
