#!/usr/bin/env bash
# Round trips, Kafka side (flexlog-bench/README.md#bench-consume-the-consumer-vs-kafkas-consumer-issue-12):
#   flexlog-bench/roundtrip/run.sh KAFKA_BOOTSTRAP TOPIC [ROUND_TRIPS WARMUP_ROUND_TRIPS RECORD_BYTES RUNS]
# TOPIC: one partition (the peer harness's settings: RF 3, min ISR 2). Needs
# org.apache.kafka:kafka-clients:4.3.1 with its runtime dependencies in ~/.m2. Same shape as
# `bin/flexlog bench consume --mode roundtrip`; each run is a fresh JVM.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=${TMPDIR:-/tmp}/flexlog-roundtrip
mkdir -p "$work"
source "$here/../kafka-clients-classpath.sh"
cp=$kafka_cp
javac -d "$work" -cp "$cp" "$here/KafkaRoundTrip.java"
for ((i = 1; i <= ${6:-1}; i++)); do
  java -cp "$work:$cp" KafkaRoundTrip "$1" "$2" "${3:-10000}" "${4:-0}" "${5:-1024}"
done
