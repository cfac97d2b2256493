#!/usr/bin/env bash
# Rebalance time, Kafka side (flexlog-bench/README.md#bench-consume-the-consumer-vs-kafkas-consumer-issue-12):
#   flexlog-bench/rebalance/run.sh KAFKA_BOOTSTRAP [PARTITIONS RATE SESSION_TIMEOUT_MS RUNS]
# Needs a running 3-broker cluster whose group.min.session.timeout.ms allows SESSION_TIMEOUT_MS
# (Kafka's default minimum is 6000) and org.apache.kafka:kafka-clients:4.3.1 with its runtime
# dependencies in ~/.m2. Same shape as `bin/flexlog bench consume --mode rebalance`.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=${TMPDIR:-/tmp}/flexlog-rebalance
mkdir -p "$work"
source "$here/../kafka-clients-classpath.sh"
cp=$kafka_cp
javac -d "$work" -cp "$cp" "$here/KafkaRebalance.java"
for ((i = 1; i <= ${5:-1}; i++)); do
  java -cp "$work:$cp" KafkaRebalance "$1" "${2:-8}" "${3:-1000}" "${4:-3000}"
done
