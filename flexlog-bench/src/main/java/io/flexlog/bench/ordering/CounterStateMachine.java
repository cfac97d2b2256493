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
 * log entry increments the counter; the reply to its client is the new value, 8 bytes big-endian,
 * which is that request's sequence number. Replicas apply entries in log order, so every peer hands
 * out the same numbers and a number is given exactly once.
 *
 * <p>Threading: Ratis applies transactions one at a time on the peer's state-machine updater
 * thread, which alone touches {@link #counter}.
 */
final class CounterStateMachine extends BaseStateMachine {
  /** The body of an increment request; its content does not matter. */
  static final Message INCREMENT = Message.valueOf(ByteString.copyFrom(new byte[] {'+'}));

  private long counter;

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    long value = ++counter;
    updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
    return CompletableFuture.completedFuture(Message.valueOf(encode(value)));
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
