#!/usr/bin/env bash
# Cold start: fresh JVM to the first acknowledged append, FlexLog's producer vs Kafka's, RUNS each
# (flexlog-bench/README.md#cold-start-and-client-closure), and the two clients' dependency closures.
# With FLOORS=1 (the default) it also measures two floors against a local echo server (python3): a
# JDK socket's echo (the JVM's own start) and a bare Netty client's echo (NettyFloor: one NIO event
# loop, connect, write, read back), the least any client built on Netty can take on this machine.
#   flexlog-bench/coldstart/run.sh FLEXLOG_BOOTSTRAP FLEXLOG_COLOR [KAFKA_BOOTSTRAP KAFKA_TOPIC]
# Needs flexlog-client built (mvn -o -pl flexlog-client -am package -DskipTests) and, for Kafka,
# org.apache.kafka:kafka-clients:4.3.1 with its runtime dependencies in ~/.m2. Each JVM runs with
# the same flags (-Xshare:auto, default GC, plus COLD_JAVA_OPTS if set, e.g. -XX:TieredStopAtLevel=1)
# and only its client's closure on the class path.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
home=$(cd "$here/../.." && pwd)
runs=${RUNS:-10}
read -ra java_opts <<<"${COLD_JAVA_OPTS:-}"  # the same extra JVM flags for every JVM measured
work=${TMPDIR:-/tmp}/flexlog-coldstart
mkdir -p "$work/flexlog" "$work/kafka"

# FlexLog client closure: the client jar and its runtime dependencies, optional codecs excluded
# (packaged here so that -am resolves flexlog-core from the reactor; the client, built last,
# writes the file last).
(cd "$home" && mvn -o -q -pl flexlog-client -am package dependency:build-classpath -DskipTests -Djacoco.skip=true -DincludeScope=runtime \
  -DexcludeArtifactIds=lz4-java,zstd-jni -Dmdep.outputFile="$work/flexlog/cp.txt") >&2
# flexlog-core from this checkout, not the copy a reactor-less resolution finds in ~/.m2.
own() { ls "$home/$1"/target/"$1"-*.jar | grep -v -e sources -e tests | head -n1; }
flexlog_cp="$(own flexlog-client):$(own flexlog-core):$(tr ':' '\n' <"$work/flexlog/cp.txt" | grep -v '/flexlog-core/' | paste -sd:)"
source "$here/../kafka-clients-classpath.sh"

closure() { # name, class path
  local jars=0 bytes=0 f
  IFS=: read -ra files <<<"$2"
  for f in "${files[@]}"; do
    [[ -z "$f" ]] && continue
    if [[ -f "$f" ]]; then jars=$((jars + 1)); bytes=$((bytes + $(stat -c %s "$f"))); else echo "missing: $f" >&2; fi
  done
  printf '%s closure: %d jars, %d bytes (%.2f MiB)\n' "$1" "$jars" "$bytes" "$(echo "$bytes / 1048576" | bc -l)"
}
closure flexlog-client "$flexlog_cp"
closure kafka-clients "$kafka_cp"
echo "JVM flags of every run: ${COLD_JAVA_OPTS:-(defaults)}"

javac -d "$work/flexlog" -cp "$flexlog_cp" "$here/FlexLogFirstSend.java"
measure() { # label, class path, main class, bootstrap, color/topic
  local i start out acked
  local all=()
  for ((i = 1; i <= runs; i++)); do
    start=$(date +%s%3N)
    out=$(java ${java_opts[@]+"${java_opts[@]}"} -cp "$2" "$3" "$4" "$5" 2>/dev/null | tail -n1)
    acked=${out%% *}
    all+=($((acked - start)))
  done
  printf '%s %s, ms from JVM launch (%d runs): %s\n' "$1" "${what:-first acknowledged append}" "$runs" "${all[*]}"
  printf '%s\n' "${all[@]}" | sort -n | awk -v l="$1" '{a[NR]=$1; s+=$1} END {printf "%s median %d ms, min %d ms, max %d ms, mean %.0f ms\n", l, (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2), a[1], a[NR], s/NR}'
}
measure flexlog "$work/flexlog:$flexlog_cp" FlexLogFirstSend "$1" "$2"
if [[ "${FLOORS:-1}" == 1 ]]; then
  mkdir -p "$work/floor"
  netty_cp=$(tr ':' '\n' <<<"$flexlog_cp" | grep '/io/netty/' | paste -sd:)
  javac -d "$work/floor" -cp "$netty_cp" "$here/NettyFloor.java" "$here/SocketFloor.java"
  rm -f "$work/floor/port"
  python3 -c '
import socket, sys, threading
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", 0))
server.listen(16)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(server.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
def echo(conn):
    with conn:
        while data := conn.recv(4096):
            conn.sendall(data)
while True:
    conn, _ = server.accept()
    threading.Thread(target=echo, args=(conn,), daemon=True).start()
' "$work/floor/port" &
  echo_pid=$!
  trap 'kill $echo_pid 2>/dev/null' EXIT
  for _ in $(seq 50); do [[ -s "$work/floor/port" ]] && break; sleep 0.1; done
  echo_port=$(cat "$work/floor/port")
  what="first echo"
  measure floor-jdk-socket "$work/floor" SocketFloor 127.0.0.1 "$echo_port"
  measure floor-netty "$work/floor:$netty_cp" NettyFloor 127.0.0.1 "$echo_port"
  what=
fi
if [[ $# -ge 4 ]]; then
  javac -d "$work/kafka" -cp "$kafka_cp" "$here/KafkaFirstSend.java"
  measure kafka "$work/kafka:$kafka_cp" KafkaFirstSend "$3" "$4"
fi
