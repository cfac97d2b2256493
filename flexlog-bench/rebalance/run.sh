#!/usr/bin/env bash
# Rebalance time, Kafka side (flexlog-bench/README.md#bench-consume-the-consumer-vs-kafkas-consumer-issue-12):
#   flexlog-bench/rebalance/run.sh KAFKA_BOOTSTRAP [PARTITIONS RATE SESSION_TIMEOUT_MS RUNS]
# Needs a running 3-broker cluster whose group.min.session.timeout.ms allows SESSION_TIMEOUT_MS
# (Kafka's default minimum is 6000) and org.apache.kafka:kafka-clients:4.3.1 with its runtime
# dependencies in ~/.m2. Same shape as `bin/flexlog bench consume --mode rebalance`.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
m2=${M2:-$HOME/.m2/repository}
work=${TMPDIR:-/tmp}/flexlog-rebalance
mkdir -p "$work"
cp=$(printf '%s:' \
  "$m2/org/apache/kafka/kafka-clients/4.3.1/kafka-clients-4.3.1.jar" \
  "$m2/com/github/luben/zstd-jni/1.5.6-10/zstd-jni-1.5.6-10.jar" \
  "$m2/at/yawk/lz4/lz4-java/1.10.2/lz4-java-1.10.2.jar" \
  "$m2/org/xerial/snappy/snappy-java/1.1.10.7/snappy-java-1.1.10.7.jar" \
  "$m2/org/slf4j/slf4j-api/1.7.36/slf4j-api-1.7.36.jar")
javac -d "$work" -cp "$cp" "$here/KafkaRebalance.java"
for ((i = 1; i <= ${5:-1}; i++)); do
  java -cp "$work:$cp" KafkaRebalance "$1" "${2:-8}" "${3:-1000}" "${4:-3000}"
done
