/**
 * {@code flexlog bench consume}: the consumer's catch-up read throughput, produce-to-poll latency
 * and rebalance time after a member is killed, in the shapes of Kafka's ConsumerPerformance and
 * EndToEndLatency (flexlog-bench/README.md).
 */
package io.flexlog.bench.consume;
