#!/usr/bin/env bash
# The image's HEALTHCHECK: exit 0 once the node's data-plane port accepts a TCP connection. A node
# binds that port after recovering its state, just before it prints its ready line.
# The port: FLEXLOG_HEALTH_ADDRESS (HOST:PORT) when set (cluster nodes: their port in the cluster
# file), else the --port of a `flexlog dev` command, else 127.0.0.1:7070.
set -euo pipefail
address="${FLEXLOG_HEALTH_ADDRESS:-}"
if [[ -z "$address" ]]; then
  port=7070
  prev=""
  # PID 1 is the JVM that bin/flexlog exec'd: its arguments end with the flexlog command line.
  while IFS= read -r -d '' arg; do
    case "$arg" in
      --port=*) port="${arg#--port=}" ;;
    esac
    if [[ "$prev" == "--port" ]]; then port="$arg"; fi
    prev="$arg"
  done </proc/1/cmdline
  address="127.0.0.1:$port"
fi
host="${address%:*}"
port="${address##*:}"
if ! timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$host" "$port" 2>/dev/null; then
  echo "flexlog-healthcheck: nothing accepts connections on $host:$port" >&2
  exit 1
fi
