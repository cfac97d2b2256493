#!/usr/bin/env bash
# Round trips, Kafka side (flexlog-bench/README.md#bench-consume-the-consumer-vs-kafkas-consumer-issue-12):
#   flexlog-bench/roundtrip/run.sh KAFKA_BOOTSTRAP TOPIC [ROUND_TRIPS WARMUP_ROUND_TRIPS RECORD_BYTES RUNS]
# TOPIC: one partition (the peer harness's settings: RF 3, min ISR 2). Needs
# org.apache.kafka:kafka-clients:4.3.1 with its runtime dependencies in ~/.m2. Same shape as
# `bin/flexlog bench consume --mode roundtrip`; each run is a fresh JVM.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
m2=${M2:-$HOME/.m2/repository}
work=${TMPDIR:-/tmp}/flexlog-roundtrip
mkdir -p "$work"
cp=$(printf '%s:' \
  "$m2/org/apache/kafka/kafka-clients/4.3.1/kafka-clients-4.3.1.jar" \
  "$m2/com/github/luben/zstd-jni/1.5.6-10/zstd-jni-1.5.6-10.jar" \
  "$m2/at/yawk/lz4/lz4-java/1.10.2/lz4-java-1.10.2.jar" \
  "$m2/org/xerial/snappy/snappy-java/1.1.10.7/snappy-java-1.1.10.7.jar" \
  "$m2/org/slf4j/slf4j-api/1.7.36/slf4j-api-1.7.36.jar")
javac -d "$work" -cp "$cp" "$here/KafkaRoundTrip.java"
for ((i = 1; i <= ${6:-1}; i++)); do
  java -cp "$work:$cp" KafkaRoundTrip "$1" "$2" "${3:-10000}" "${4:-0}" "${5:-1024}"
done
