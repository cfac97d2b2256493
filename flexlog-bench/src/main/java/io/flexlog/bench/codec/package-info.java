/**
 * JMH micro-benchmarks of the wire codec: {@link io.flexlog.bench.codec.FrameCodecBenchmark}
 * encodes one APPEND frame through {@code AppendDescriptor}, copies header and payload into one
 * pooled buffer as one socket read would deliver them, splits and validates it with a {@code
 * FrameDecoder} in an {@code EmbeddedChannel}, and reads it back through the descriptor.
 *
 * <p>Who talks to whom: JMH runs it ({@code java -cp ... org.openjdk.jmh.Main FrameCodec}); it is
 * not part of the {@code flexlog bench} command. It calls only {@code io.flexlog.core.protocol} and
 * Netty, exactly the decode path every node and the client run, so {@code -prof gc} shows whether
 * that path allocates per frame beyond the decoder's slice (it must not: no per-record allocation
 * on hot paths, see {@code docs/architecture.md}).
 *
 * <p>Threading: JMH state is per thread ({@code Scope.Thread}), so each benchmark thread has its
 * own channel and buffers; nothing is shared. Failures: a frame that does not decode would throw
 * the decoder's {@code ProtocolException} and fail the benchmark run rather than be measured. The
 * frame layout: {@code docs/protocol.md} ("APPEND").
 */
package io.flexlog.bench.codec;
