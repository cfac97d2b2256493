package io.flexlog.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How a node hands an admin request to its relay and sends the answer on its loop. */
class AdminRelayTest {
  private static final long REQUEST_ID = 42L;

  private final List<ByteBuf> sent = new ArrayList<>();
  private final List<Runnable> loop = new ArrayList<>();
  private final ByteBuf request =
      DescribeClusterDescriptor.encodeRequest(UnpooledByteBufAllocator.DEFAULT, REQUEST_ID);

  @AfterEach
  void release() {
    sent.forEach(ByteBuf::release);
    if (request.refCnt() > 0) {
      request.release();
    }
  }

  private void serve(AdminRelay relay, Executor executor) {
    AdminRelay.serve(relay, request, executor, sent::add);
  }

  private void runLoop() {
    loop.forEach(Runnable::run);
    loop.clear();
  }

  @Test
  void shouldSendTheAnswerOnTheLoopOnlyOnceItCompletes() {
    CompletableFuture<ByteBuf> answer = new CompletableFuture<>();
    serve(r -> answer, loop::add);

    runLoop();
    assertThat(sent).isEmpty();
    answer.complete(
        DescribeColorsDescriptor.encodeResponse(
            UnpooledByteBufAllocator.DEFAULT,
            REQUEST_ID,
            new DescribeColorsDescriptor.Response(1, List.of())));
    assertThat(sent).isEmpty();
    runLoop();

    assertThat(sent).hasSize(1);
    assertThat(FrameDescriptor.type(sent.get(0))).isEqualTo(MessageType.DESCRIBE_COLORS_RESPONSE);
  }

  @Test
  void shouldRefuseEveryAdminRequestOnANodeWithoutTheControlPlane() {
    serve(AdminRelay.NONE, Runnable::run);

    assertThat(sent).hasSize(1);
    ByteBuf error = sent.get(0);
    assertThat(FrameDescriptor.type(error)).isEqualTo(MessageType.ERROR);
    assertThat(FrameDescriptor.requestId(error)).isEqualTo(REQUEST_ID);
    assertThat(ErrorDescriptor.code(error)).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(ErrorDescriptor.message(error)).contains("no admin service");
  }

  @Test
  void shouldAnswerInternalNamingTheRequestWhenTheRelayThrowsOrFails() {
    serve(
        r -> {
          throw new IllegalStateException("boom");
        },
        Runnable::run);
    serve(
        r -> CompletableFuture.failedFuture(new IllegalStateException("late boom")), Runnable::run);

    assertThat(sent).hasSize(2);
    assertThat(sent)
        .allSatisfy(
            e -> {
              assertThat(ErrorDescriptor.code(e)).isEqualTo(ErrorCode.INTERNAL);
              assertThat(FrameDescriptor.requestId(e)).isEqualTo(REQUEST_ID);
              assertThat(ErrorDescriptor.message(e)).startsWith("relaying DESCRIBE_CLUSTER failed");
            });
    assertThat(ErrorDescriptor.message(sent.get(1))).contains("late boom");
  }

  @Test
  void shouldReleaseAnAnswerThatArrivesAfterTheLoopStopped() {
    ByteBuf answer = DescribeClusterDescriptor.encodeRequest(UnpooledByteBufAllocator.DEFAULT, 1L);
    serve(
        r -> CompletableFuture.completedFuture(answer),
        task -> {
          throw new RejectedExecutionException("stopped");
        });

    assertThat(sent).isEmpty();
    assertThat(answer.refCnt()).isZero();
  }
}
