package io.flexlog.it;

import io.flexlog.core.model.Sn;
import io.flexlog.core.protocol.AppendAckDescriptor;
import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.ReadDescriptor;
import io.flexlog.core.protocol.ReadResponseDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;

/**
 * Reads records from ONE replica over a plain blocking socket, speaking the core protocol directly
 * (READ / READ_RESPONSE), so a test can check each replica's copy rather than whichever replica the
 * client happens to ask; it can also send that replica an APPEND with a token of the test's choice.
 * Answers RETRY are retried until {@code retryFor} has passed.
 */
final class ReplicaReader implements AutoCloseable {
  /** The outcome of a READ on one replica. */
  enum Status {
    FOUND,
    ABSENT,
    RETRY,
    TRIMMED
  }

  /** A replica's answer; {@code payload} is non-null only for {@link Status#FOUND}. */
  record Answer(Status status, long sn, long bound, byte[] payload) {}

  private static final int MAX_FRAME_BYTES = (2 << 20) + 1024;

  private final int replica;
  private final int colorId;
  private final Duration retryFor;
  private final Socket socket;
  private final OutputStream out;
  private final DataInputStream in;
  private long nextRequestId = 1;

  ReplicaReader(int replica, int port, int colorId, Duration retryFor) throws IOException {
    this.replica = replica;
    this.colorId = colorId;
    this.retryFor = retryFor;
    this.socket = new Socket(InetAddress.getLoopbackAddress(), port);
    socket.setTcpNoDelay(true);
    socket.setSoTimeout(10_000);
    this.out = new BufferedOutputStream(socket.getOutputStream());
    this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
  }

  /** Reads {@code sn}, asking again while the replica answers RETRY, for up to {@code retryFor}. */
  Answer read(long sn) throws IOException {
    long deadline = System.nanoTime() + retryFor.toNanos();
    while (true) {
      Answer answer = readOnce(sn);
      if (answer.status() != Status.RETRY || System.nanoTime() - deadline > 0) {
        return answer;
      }
    }
  }

  /** One READ and its READ_RESPONSE, whatever the status. */
  Answer readOnce(long sn) throws IOException {
    long requestId = nextRequestId++;
    ByteBuf request =
        ReadDescriptor.encode(UnpooledByteBufAllocator.DEFAULT, requestId, colorId, sn);
    try {
      out.write(ByteBufUtil.getBytes(request));
      out.flush();
    } finally {
      request.release();
    }
    ByteBuf frame = readFrame();
    FrameDescriptor.validateHeader(frame);
    byte type = FrameDescriptor.type(frame);
    if (type != MessageType.READ_RESPONSE) {
      throw new IOException(
          "replica "
              + replica
              + " answered READ of "
              + Sn.describe(sn)
              + " with "
              + MessageType.name(type));
    }
    if (FrameDescriptor.requestId(frame) != requestId) {
      throw new IOException(
          "replica "
              + replica
              + " answered request "
              + FrameDescriptor.requestId(frame)
              + ", expected "
              + requestId);
    }
    ReadResponseDescriptor.validate(frame);
    if (ReadResponseDescriptor.sn(frame) != sn
        || ReadResponseDescriptor.colorId(frame) != colorId) {
      throw new IOException(
          "replica "
              + replica
              + " answered READ of "
              + Sn.describe(sn)
              + " about color "
              + ReadResponseDescriptor.colorId(frame)
              + " sn "
              + Sn.describe(ReadResponseDescriptor.sn(frame)));
    }
    Status status = Status.values()[ReadResponseDescriptor.status(frame)];
    byte[] payload =
        status == Status.FOUND ? ByteBufUtil.getBytes(ReadResponseDescriptor.payload(frame)) : null;
    return new Answer(status, sn, ReadResponseDescriptor.bound(frame), payload);
  }

  /**
   * Sends an APPEND of token (session, sequence) to shard {@code shardId} of this reader's color;
   * {@link #awaitAck} waits for the answer. A record is ordered once every replica of its shard
   * stored it, so a test sends the same token to each of them before it waits.
   *
   * @return the request id to wait for
   */
  long sendAppend(long session, long sequence, int shardId, byte[] payload) throws IOException {
    long requestId = nextRequestId++;
    ByteBuf header =
        AppendDescriptor.encodeHeader(
            UnpooledByteBufAllocator.DEFAULT,
            requestId,
            session,
            sequence,
            colorId,
            shardId,
            payload.length);
    try {
      out.write(ByteBufUtil.getBytes(header));
      out.write(payload);
      out.flush();
    } finally {
      header.release();
    }
    return requestId;
  }

  /**
   * Waits for this replica's answer to the APPEND sent as {@code requestId}.
   *
   * @return the SN the replica acknowledged
   * @throws IOException on an ERROR answer, naming its code and message
   */
  long awaitAck(long requestId) throws IOException {
    while (true) {
      ByteBuf frame = readFrame();
      FrameDescriptor.validateHeader(frame);
      if (FrameDescriptor.requestId(frame) != requestId) {
        continue;
      }
      byte type = FrameDescriptor.type(frame);
      if (type == MessageType.APPEND_ACK) {
        return AppendAckDescriptor.sn(frame);
      }
      if (type == MessageType.ERROR) {
        throw new IOException(
            "replica "
                + replica
                + " refused the append: "
                + ErrorDescriptor.code(frame)
                + " "
                + ErrorDescriptor.message(frame));
      }
      throw new IOException(
          "replica " + replica + " answered APPEND with " + MessageType.name(type));
    }
  }

  private ByteBuf readFrame() throws IOException {
    int length = in.readInt();
    if (length < FrameDescriptor.LENGTH_FIELD_OVERHEAD || length > MAX_FRAME_BYTES) {
      throw new IOException("replica " + replica + " sent a frame of length " + length);
    }
    byte[] frame = new byte[4 + length];
    frame[0] = (byte) (length >>> 24);
    frame[1] = (byte) (length >>> 16);
    frame[2] = (byte) (length >>> 8);
    frame[3] = (byte) length;
    in.readFully(frame, 4, length);
    return Unpooled.wrappedBuffer(frame);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
