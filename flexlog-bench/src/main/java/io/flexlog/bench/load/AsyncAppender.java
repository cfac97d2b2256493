package io.flexlog.bench.load;

import java.util.concurrent.CompletableFuture;

/**
 * Where a load client sends its appends: in a real run {@code payload -> flexLog.appendAsync(color,
 * payload)}, in tests a fake.
 *
 * <p>Contract: the future completes with the record's SN, or exceptionally when the append failed.
 * The implementation must not modify {@code payload}; the caller does not modify it either, so one
 * array may be shared by every client. The future may complete on any thread, including the calling
 * one before {@code append} returns.
 */
@FunctionalInterface
public interface AsyncAppender {
  CompletableFuture<Long> append(byte[] payload);
}
