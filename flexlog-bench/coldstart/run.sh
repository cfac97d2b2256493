#!/usr/bin/env bash
# Cold start: fresh JVM to the first acknowledged append, FlexLog's producer vs Kafka's, RUNS each
# (flexlog-bench/README.md#cold-start), and the two clients' dependency closures.
#   flexlog-bench/coldstart/run.sh FLEXLOG_BOOTSTRAP FLEXLOG_COLOR [KAFKA_BOOTSTRAP KAFKA_TOPIC]
# Needs flexlog-client built (mvn -o -pl flexlog-client -am package -DskipTests) and, for Kafka,
# org.apache.kafka:kafka-clients:4.3.1 with its runtime dependencies in ~/.m2. Each JVM runs with
# the same flags (-Xshare:auto, default GC) and only its client's closure on the class path.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
home=$(cd "$here/../.." && pwd)
runs=${RUNS:-10}
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

javac -d "$work/flexlog" -cp "$flexlog_cp" "$here/FlexLogFirstSend.java"
measure() { # label, class path, main class, bootstrap, color/topic
  local i start out acked
  local all=()
  for ((i = 1; i <= runs; i++)); do
    start=$(date +%s%3N)
    out=$(java -cp "$2" "$3" "$4" "$5" 2>/dev/null | tail -n1)
    acked=${out%% *}
    all+=($((acked - start)))
  done
  printf '%s first acknowledged append, ms from JVM launch (%d runs): %s\n' "$1" "$runs" "${all[*]}"
  printf '%s\n' "${all[@]}" | sort -n | awk -v l="$1" '{a[NR]=$1; s+=$1} END {printf "%s median %d ms, min %d ms, max %d ms, mean %.0f ms\n", l, (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2), a[1], a[NR], s/NR}'
}
measure flexlog "$work/flexlog:$flexlog_cp" FlexLogFirstSend "$1" "$2"
if [[ $# -ge 4 ]]; then
  javac -d "$work/kafka" -cp "$kafka_cp" "$here/KafkaFirstSend.java"
  measure kafka "$work/kafka:$kafka_cp" KafkaFirstSend "$3" "$4"
fi
