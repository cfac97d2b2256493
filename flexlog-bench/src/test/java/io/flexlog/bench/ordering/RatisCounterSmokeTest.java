package io.flexlog.bench.ordering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.ratis.protocol.Message;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The Ratis counter with three real peers on loopback: it hands out every number once. */
class RatisCounterSmokeTest {
  private static final int CLIENTS = 2;

  @BeforeAll
  static void quiet() {
    QuietLogging.ratis();
  }

  @ParameterizedTest
  @EnumSource(RatisRequests.class)
  void shouldGiveEveryIncrementItsOwnIncreasingNumber(RatisRequests requests, @TempDir Path dir)
      throws Exception {
    FlexLogOrderingSmokeTest.SnLog sns = new FlexLogOrderingSmokeTest.SnLog(CLIENTS);
    StringWriter progress = new StringWriter();
    PhasedRun phases =
        new PhasedRun(
            Duration.ofMillis(300),
            Duration.ofMillis(700),
            OrderingBenchmark.PREPARE_TIMEOUT,
            OrderingBenchmark.DRAIN_TIMEOUT);

    SideResult result;
    try (RatisCounterCluster cluster = RatisCounterCluster.start(dir, RatisLog.DISK)) {
      LoadControl control = new LoadControl(CLIENTS, System::nanoTime);
      try (RatisCounterLoad load =
          new RatisCounterLoad(cluster, CLIENTS, 4, requests, control, sns)) {
        result =
            phases.run(
                "ratis counter", "3 peers", load, control, CLIENTS, new PrintWriter(progress));
      }
    }

    assertThat(result.failure()).as("progress: %s", progress).isEmpty();
    assertThat(result.sns()).isPositive();
    assertThat(result.snsPerSec()).isPositive();
    assertThat(result.orderViolations()).isZero();
    sns.assertIncreasingPerClientAndUniqueOverall();
  }

  @Test
  void shouldEncodeAnIncrementAsItsCountAndRefuseCountsOutOfRange() {
    Message increment = CounterStateMachine.increment(300);

    assertThat(increment.getContent().toByteArray()).containsExactly(0, 0, 1, 44);
    assertThat(CounterStateMachine.decodeCount(increment.getContent())).isEqualTo(300);
    assertThatThrownBy(() -> CounterStateMachine.increment(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("got 0");
    assertThatThrownBy(() -> CounterStateMachine.decodeCount(CounterStateMachine.encode(1L)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("has 4 bytes, got 8");
  }

  @Test
  void shouldEncodeTheCounterAsEightBigEndianBytes() {
    Message reply = Message.valueOf(CounterStateMachine.encode(0x0102_0304_0506_0708L));

    assertThat(reply.getContent().toByteArray()).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
    assertThat(CounterStateMachine.decode(reply)).isEqualTo(0x0102_0304_0506_0708L);
  }
}
