# Sourced by the Kafka sides of the benchmarks (coldstart/, rebalance/, roundtrip/): sets
# kafka_cp to org.apache.kafka:kafka-clients:4.3.1 and its runtime dependencies in the local Maven
# repository (M2, default ~/.m2/repository), the closure a Kafka client application ships.
m2=${M2:-$HOME/.m2/repository}
kafka_cp=$(printf '%s:' \
  "$m2/org/apache/kafka/kafka-clients/4.3.1/kafka-clients-4.3.1.jar" \
  "$m2/com/github/luben/zstd-jni/1.5.6-10/zstd-jni-1.5.6-10.jar" \
  "$m2/at/yawk/lz4/lz4-java/1.10.2/lz4-java-1.10.2.jar" \
  "$m2/org/xerial/snappy/snappy-java/1.1.10.7/snappy-java-1.1.10.7.jar" \
  "$m2/org/slf4j/slf4j-api/1.7.36/slf4j-api-1.7.36.jar")
