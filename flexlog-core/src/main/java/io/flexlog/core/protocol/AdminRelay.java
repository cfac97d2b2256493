package io.flexlog.core.protocol;

import io.flexlog.core.error.ErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * Where a node hands the admin requests it receives on its data-plane port (CREATE_COLOR,
 * DESCRIBE_COLORS, DESCRIBE_CLUSTER, ALTER_COLOR; {@link MessageType#isAdminRequest}): the control
 * plane relays them to the admin service and answers with the matching response frame or an ERROR
 * (docs/architecture.md#admin-requests-on-the-data-plane). Sequencer and replica nodes know only
 * this interface; {@code flexlog-server} implements it.
 */
@FunctionalInterface
public interface AdminRelay {
  /** A node without the control plane: refuses every admin request with INVALID_ARGUMENT. */
  AdminRelay NONE =
      request ->
          CompletableFuture.completedFuture(
              ErrorDescriptor.encode(
                  ByteBufAllocator.DEFAULT,
                  FrameDescriptor.requestId(request),
                  ErrorCode.INVALID_ARGUMENT,
                  "this node relays no admin requests: the cluster has no admin service (no"
                      + " admin-port in its cluster file), so its colors are fixed"));

  /**
   * Serves one validated admin request. Called on the node's event loop: it must not block, and
   * must read what it needs from {@code request} before it returns (the caller releases it then).
   *
   * @return completes, on any thread, with the answer frame, which the caller owns: the response or
   *     an ERROR, both with the request's id
   */
  CompletableFuture<ByteBuf> relay(ByteBuf request);

  /**
   * Relays {@code request} and sends the answer on {@code loop} through {@code send}, which takes
   * ownership of it. A relay that throws or fails is answered with ERROR {@code INTERNAL}; an
   * answer that arrives after {@code loop} stopped is released.
   */
  static void serve(AdminRelay relay, ByteBuf request, Executor loop, Consumer<ByteBuf> send) {
    long requestId = FrameDescriptor.requestId(request);
    String type = MessageType.name(FrameDescriptor.type(request));
    CompletableFuture<ByteBuf> answer;
    try {
      answer = relay.relay(request);
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    answer.whenComplete(
        (frame, error) -> {
          ByteBuf out =
              error == null
                  ? frame
                  : ErrorDescriptor.encode(
                      ByteBufAllocator.DEFAULT,
                      requestId,
                      ErrorCode.INTERNAL,
                      "relaying " + type + " failed: " + error);
          try {
            loop.execute(() -> send.accept(out));
          } catch (RejectedExecutionException stopped) {
            out.release();
          }
        });
  }
}
