package io.flexlog.bench.ordering;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * A replicated counter as a Ratis state machine: a sequencer built on consensus. Every committed
 * log entry adds its count (4 bytes big-endian, 1 to {@link #MAX_COUNT}) to the counter; the reply
 * to its client is the new value, 8 bytes big-endian: the request got the SNs {@code value - count
 * + 1} to {@code value}. Replicas apply entries in log order, so every peer hands out the same
 * numbers and a number is given exactly once.
 *
 * <p>Threading: Ratis applies transactions one at a time on the peer's state-machine updater
 * thread, which alone touches {@link #counter}.
 */
final class CounterStateMachine extends BaseStateMachine {
  /** The most increments one request may carry. */
  static final int MAX_COUNT = 1 << 20;

  /** A request for one SN. */
  static final Message INCREMENT = increment(1);

  private long counter;

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    ByteString data = entry.getStateMachineLogEntry().getLogData();
    int count;
    try {
      count = decodeCount(data);
    } catch (IllegalArgumentException e) {
      // Every peer refuses the same entry the same way, so the counters stay equal.
      updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
      return CompletableFuture.failedFuture(e);
    }
    counter += count;
    long value = counter;
    updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
    return CompletableFuture.completedFuture(Message.valueOf(encode(value)));
  }

  /** A request for {@code count} consecutive SNs. */
  static Message increment(int count) {
    if (count < 1 || count > MAX_COUNT) {
      throw new IllegalArgumentException(
          "an increment asks for 1 to " + MAX_COUNT + " SNs, got " + count);
    }
    return Message.valueOf(
        ByteString.copyFrom(ByteBuffer.allocate(Integer.BYTES).putInt(0, count)));
  }

  static int decodeCount(ByteString data) {
    if (data.size() != Integer.BYTES) {
      throw new IllegalArgumentException(
          "an increment request has " + Integer.BYTES + " bytes, got " + data.size());
    }
    int count = data.asReadOnlyByteBuffer().getInt();
    if (count < 1 || count > MAX_COUNT) {
      throw new IllegalArgumentException(
          "an increment asks for 1 to " + MAX_COUNT + " SNs, got " + count);
    }
    return count;
  }

  static ByteString encode(long value) {
    return ByteString.copyFrom(ByteBuffer.allocate(Long.BYTES).putLong(0, value));
  }

  /** The counter value in a reply. */
  static long decode(Message reply) {
    ByteString content = reply.getContent();
    if (content.size() != Long.BYTES) {
      throw new IllegalArgumentException(
          "a counter reply has " + Long.BYTES + " bytes, got " + content.size());
    }
    return content.asReadOnlyByteBuffer().getLong();
  }
}
