package io.flexlog.it.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HistoryCheckerTest {
  private final History history = new History();
  private long counter;

  private byte[] record() {
    return ByteBuffer.allocate(12).putInt(7).putLong(counter++).array();
  }

  private History.Append acked(String color, long sn) {
    History.Append a = history.appendInvoked("c", color, record());
    a.acked(sn);
    return a;
  }

  @Test
  void shouldAcceptAValidConcurrentHistory() {
    History.Append a = history.appendInvoked("c1", "global", record());
    History.Append b = history.appendInvoked("c2", "global", record());
    b.acked(5); // concurrent with a: any order is fine
    a.acked(3);
    History.Append c = acked("global", 9);
    History.Append lost = history.appendInvoked("c3", "global", record());
    lost.failed(new RuntimeException("timeout"));
    history.readInvoked("r", "global", 5).found(b.payload);
    history.readInvoked("r", "global", 4).hole();
    History.Subscriber s1 = history.subscriber("s1", "global", 0);
    History.Subscriber s2 = history.subscriber("s2", "global", 4);
    for (History.Append x : List.of(a, b, c)) {
      s1.delivered(x.sn(), x.payload);
    }
    s2.delivered(5, b.payload);
    s2.delivered(9, c.payload);
    s1.complete();

    assertThat(HistoryChecker.check(history)).isEmpty();
  }

  @Test
  void shouldReportTwoAcknowledgedAppendsAtOneSn() {
    History.Append a = history.appendInvoked("c1", "global", record());
    History.Append b = history.appendInvoked("c2", "global", record());
    a.acked(4);
    b.acked(4);
    acked("left", 4); // another color may reuse the number

    assertThat(HistoryChecker.check(history)).singleElement().asString().contains("two records");
  }

  @Test
  void shouldReportRealTimeOrderViolation() {
    acked("global", 10);
    acked("global", 7); // began after the first completed, yet got a smaller SN

    assertThat(HistoryChecker.check(history))
        .singleElement()
        .asString()
        .contains("real-time order");
  }

  @Test
  void shouldReportReadOfARecordAtTheWrongSn() {
    History.Append a = acked("global", 3);
    history.readInvoked("r", "global", 4).found(a.payload);

    assertThat(HistoryChecker.check(history)).isNotEmpty();
  }

  @Test
  void shouldReportAPhantomRecord() {
    acked("global", 3);
    history.readInvoked("r", "global", 4).found(new byte[] {1, 2, 3});

    assertThat(HistoryChecker.check(history)).singleElement().asString().contains("never appended");
  }

  @Test
  void shouldReportARecordReadInTheWrongColor() {
    History.Append a = acked("left", 3);
    history.readInvoked("r", "right", 3).found(a.payload);

    assertThat(HistoryChecker.check(history)).singleElement().asString().contains("wrong color");
  }

  @Test
  void shouldReportAHoleWhereARecordWasAcknowledged() {
    acked("global", 3);
    history.readInvoked("r", "global", 3).hole();

    assertThat(HistoryChecker.check(history)).singleElement().asString().contains("hole");
  }

  @Test
  void shouldReportAnIndeterminateRecordSeenAtTwoSns() {
    History.Append a = history.appendInvoked("c", "global", record());
    a.failed(new RuntimeException());
    history.readInvoked("r", "global", 3).found(a.payload);
    history.readInvoked("r", "global", 8).found(a.payload);

    assertThat(HistoryChecker.check(history)).singleElement().asString().contains("also seen");
  }

  @Test
  void shouldReportASubscriberThatSkipsAnAcknowledgedRecord() {
    History.Append a = acked("global", 1);
    acked("global", 2);
    History.Append c = acked("global", 3);
    History.Subscriber s = history.subscriber("s", "global", 0);
    s.delivered(1, a.payload);
    s.delivered(3, c.payload);

    assertThat(HistoryChecker.check(history)).singleElement().asString().contains("skipped");
  }

  @Test
  void shouldReportASubscriberOutOfOrder() {
    History.Append a = history.appendInvoked("c1", "global", record());
    History.Append b = history.appendInvoked("c2", "global", record());
    a.acked(1);
    b.acked(2);
    History.Subscriber s = history.subscriber("s", "global", 0);
    s.delivered(2, b.payload);
    s.delivered(1, a.payload);

    assertThat(HistoryChecker.check(history)).anyMatch(v -> v.contains("after sn 2"));
  }

  @Test
  void shouldReportACompleteSubscriberThatStoppedEarly() {
    History.Append a = acked("global", 1);
    acked("global", 2);
    History.Subscriber s = history.subscriber("s", "global", 0);
    s.delivered(1, a.payload);
    s.complete();

    assertThat(HistoryChecker.check(history)).singleElement().asString().contains("completed at");
  }

  @Test
  void shouldReportSubscribersThatDisagree() {
    History.Append a = acked("global", 1);
    History.Append ghost = history.appendInvoked("c", "global", record());
    ghost.failed(new RuntimeException());
    History.Append c = acked("global", 3);
    History.Subscriber s1 = history.subscriber("s1", "global", 0);
    History.Subscriber s2 = history.subscriber("s2", "global", 0);
    s1.delivered(1, a.payload);
    s1.delivered(2, ghost.payload);
    s1.delivered(3, c.payload);
    s2.delivered(1, a.payload);
    s2.delivered(3, c.payload);

    assertThat(HistoryChecker.check(history)).singleElement().asString().contains("diverge");
  }

  @Test
  void shouldReportAPartialAtomicAppend() {
    History.AtomicAppend atomic =
        history.atomicInvoked("c", Map.of("left", List.of(record()), "right", List.of(record())));
    atomic.failed(new RuntimeException("client crashed"));
    History.Append left =
        atomic.members.stream().filter(m -> m.color.equals("left")).findFirst().get();
    History.Subscriber l = history.subscriber("l", "left", 0);
    l.delivered(4, left.payload);
    l.complete();
    history.subscriber("r", "right", 0).complete();

    assertThat(HistoryChecker.check(history)).singleElement().asString().contains("all-or-nothing");
  }

  @Test
  void shouldAcceptAnAtomicAppendThatAppearedNowhere() {
    History.AtomicAppend atomic =
        history.atomicInvoked("c", Map.of("left", List.of(record()), "right", List.of(record())));
    atomic.failed(new RuntimeException("client crashed"));
    history.subscriber("l", "left", 0).complete();
    history.subscriber("r", "right", 0).complete();

    assertThat(HistoryChecker.check(history)).isEmpty();
  }

  /** An indeterminate record, as a lost or timed-out append leaves it. */
  private History.Append ghost(String color) {
    History.Append a = history.appendInvoked("c", color, record());
    a.failed(new RuntimeException("timeout"));
    return a;
  }

  private static void deliver(History.Subscriber s, History.Append... records) {
    for (History.Append r : records) {
      s.delivered(r.sn() > 0 ? r.sn() : 2, r.payload); // each test has at most one ghost at sn 2
    }
  }

  @Test
  void shouldReportTwoOfThreeSubscribersThatDisagreeWhenTheFirstIsEmpty() {
    History.Append a = acked("global", 1);
    History.Append ghost = ghost("global");
    History.Append c = acked("global", 3);
    history.subscriber("s0", "global", 0); // opened, received nothing yet
    History.Subscriber s1 = history.subscriber("s1", "global", 0);
    History.Subscriber s2 = history.subscriber("s2", "global", 0);
    deliver(s1, a, ghost, c); // the ghost lands at sn 2
    deliver(s2, a, c);

    assertThat(HistoryChecker.check(history))
        .singleElement()
        .asString()
        .contains("diverge")
        .contains("sn 2 not delivered to s2");
  }

  @Test
  void shouldReportTwoOfThreeSubscribersThatDisagreeWhenTheFirstCoversAnotherRange() {
    History.Append a = acked("global", 1);
    History.Append ghost = ghost("global");
    History.Append c = acked("global", 3);
    deliver(history.subscriber("s0", "global", 0), a); // stopped after sn 1
    History.Subscriber s1 = history.subscriber("s1", "global", 0);
    History.Subscriber s2 = history.subscriber("s2", "global", 0);
    deliver(s1, a, c);
    deliver(s2, a, ghost, c);

    assertThat(HistoryChecker.check(history))
        .singleElement()
        .asString()
        .contains("sn 2 not delivered to s1");
  }

  @Test
  void shouldReportDisagreementAmongFourSubscribersWithDisjointFirstRange() {
    History.Append a = acked("global", 1);
    History.Append ghost = ghost("global");
    History.Append c = acked("global", 3);
    History.Append d = acked("global", 5);
    History.Append e = acked("global", 6);
    deliver(history.subscriber("late", "global", 5), d, e); // shares no SN with the others
    History.Subscriber s1 = history.subscriber("s1", "global", 0);
    History.Subscriber s2 = history.subscriber("s2", "global", 0);
    History.Subscriber s3 = history.subscriber("s3", "global", 0);
    deliver(s1, a, ghost, c);
    deliver(s2, a, c);
    deliver(s3, a);

    assertThat(HistoryChecker.check(history))
        .singleElement()
        .asString()
        .contains("sn 2 not delivered to s2");
  }

  @Test
  void shouldReportARecordThatAReadReturnsButFourSubscribersSkip() {
    History.Append a = acked("global", 1);
    History.Append ghost = ghost("global");
    History.Append c = acked("global", 3);
    history.readInvoked("r", "global", 2).found(ghost.payload);
    history.subscriber("s0", "global", 0);
    for (String name : List.of("s1", "s2", "s3")) {
      deliver(history.subscriber(name, "global", 0), a, c);
    }

    assertThat(HistoryChecker.check(history))
        .hasSize(3)
        .allMatch(v -> v.contains("skipped") && v.contains("read"));
  }

  @Test
  void shouldAcceptFourSubscribersWithEmptyAndPartialRanges() {
    History.Append a = acked("global", 1);
    History.Append ghost = ghost("global");
    History.Append c = acked("global", 3);
    History.Append late = ghost("global"); // lands at sn 4, after s1 stopped
    history.subscriber("empty", "global", 0);
    History.Subscriber full = history.subscriber("full", "global", 0);
    deliver(full, a, ghost, c);
    full.delivered(4, late.payload);
    full.complete();
    deliver(history.subscriber("from2", "global", 2), ghost, c);
    deliver(history.subscriber("stopped", "global", 0), a);

    assertThat(HistoryChecker.check(history)).isEmpty();
  }

  @Test
  void assertValidListsViolations() {
    acked("global", 4);
    acked("global", 2);

    assertThatThrownBy(() -> HistoryChecker.assertValid(history))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("1 history violation");
  }
}
