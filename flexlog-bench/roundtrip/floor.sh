#!/usr/bin/env bash
# Round-trip floor (flexlog-bench/README.md#the-two-parts-of-a-round-trip-2026-11-27-eighth-session):
# a Netty echo server in one JVM, then RUNS fresh JVMs of NettyPingPong against it (the first,
# WARMUP round trips, only warms the server), all on 127.0.0.1.
#   flexlog-bench/roundtrip/floor.sh [ROUND_TRIPS RECORD_BYTES RUNS WARMUP]
# Needs flexlog-client built (its Netty jars are the class path).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
home=$(cd "$here/../.." && pwd)
work=${TMPDIR:-/tmp}/flexlog-roundtrip-floor
mkdir -p "$work"
(cd "$home" && mvn -o -q -pl flexlog-client -am package dependency:build-classpath -DskipTests -Djacoco.skip=true -DincludeScope=runtime \
  -Dmdep.outputFile="$work/cp.txt") >&2
netty_cp=$(tr ':' '\n' <"$work/cp.txt" | grep '/io/netty/' | paste -sd:)
javac -d "$work" -cp "$netty_cp" "$here/NettyEchoServer.java" "$here/NettyPingPong.java"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
java -cp "$work:$netty_cp" NettyEchoServer "$port" &
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
java -cp "$work:$netty_cp" NettyPingPong "$port" "${4:-20000}" "${2:-1024}" >/dev/null
for ((i = 1; i <= ${3:-3}; i++)); do
  java -cp "$work:$netty_cp" NettyPingPong "$port" "${1:-10000}" "${2:-1024}"
done
