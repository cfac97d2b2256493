package io.flexlog.client.consumer.internals;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.consumer.ColorShard;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;

/**
 * Consumer groups in a seeded simulation (docs/testing.md#consumer-groups): members running the
 * production {@link MemberLogic} and {@link Adoption} over one simulated group log with virtual
 * time. Appends are delayed, reordered against each other and sometimes lost; members join, leave,
 * stop polling, crash (silently: no LEAVE) and new ones start; the leader trims after its
 * checkpoints and slow members are overtaken by the trim. Checked after every step: every member's
 * state equals the referee's at the same log position (AGREEMENT), and no committed position moves
 * backwards (POSITIONS_MONOTONIC). At the end, with faults stopped: the live members are exactly
 * the group's members, every shard is owned by one of them, evenly (CONVERGENCE).
 */
class GroupSimulationTest {
  private static final int SEEDS = Integer.getInteger("flexlog.groupsim.seeds", 100);
  private static final long MS = 1_000_000L;
  private static final long SESSION_MS = 1000;
  private static final Map<String, List<Integer>> SHARDS =
      Map.of("c", List.of(0, 1, 2, 3, 4, 5, 6, 7), "d", List.of(10, 11));

  @Test
  void shouldAgreeFenceCommitsAndConvergeUnderJoinsLeavesAndCrashes() {
    for (int seed = 1; seed <= SEEDS; seed++) {
      try {
        new Run(seed).run();
      } catch (AssertionError e) {
        throw new AssertionError("group simulation seed " + seed + ": " + e.getMessage(), e);
      }
    }
  }

  private static final class Run {
    final Random random;
    long nowNs = 1_000 * MS;
    final List<GroupRecord> log = new ArrayList<>(); // SN = index + 1
    final List<GroupState.Snapshot> refereeAt = new ArrayList<>();
    final GroupState referee = new GroupState();
    final List<Pending> inflight = new ArrayList<>();
    final List<Member> members = new ArrayList<>();
    final Map<ColorShard, Long> lastCommitted = new HashMap<>();
    long trimmedBelow = 1; // the first SN still in the log
    int nextId;
    boolean faults = true;

    record Pending(GroupRecord record, long dueNs, LongConsumer onSn) {}

    Run(int seed) {
      random = new Random(seed);
    }

    void run() {
      for (int i = 0; i < 3; i++) {
        start();
      }
      for (int step = 0; step < 1500; step++) {
        step();
      }
      faults = false;
      if (members.stream().noneMatch(m -> m.alive)) {
        start(); // with nobody alive nobody reads the log: a dead member stays until someone does
      }
      for (Member m : members) {
        if (m.alive && !m.wants) {
          m.join();
        }
      }
      for (int step = 0; step < 3000; step++) {
        step();
      }
      checkConverged();
    }

    void start() {
      Member m = new Member(this, "m" + nextId++);
      members.add(m);
      m.join();
    }

    void step() {
      nowNs += random.nextInt(40) * MS;
      deliver();
      for (Member m : members) {
        if (m.alive) {
          m.read(random.nextInt(6));
          if (!m.stuck || !faults) {
            m.poll();
          }
          m.logic.duties(nowNs);
        }
      }
      if (random.nextInt(4) == 0) {
        Member m = members.get(random.nextInt(members.size()));
        if (m.alive && m.wants) {
          m.commit();
        }
      }
      if (faults) {
        faults();
      }
    }

    void faults() {
      int r = random.nextInt(400);
      List<Member> alive = members.stream().filter(m -> m.alive).toList();
      if (r == 0 && !alive.isEmpty()) {
        alive.get(random.nextInt(alive.size())).alive = false; // kill -9
      } else if (r == 1 && alive.size() < 6) {
        start();
      } else if (r == 2 && !alive.isEmpty()) {
        Member m = alive.get(random.nextInt(alive.size()));
        m.logic.stopWanting();
        m.wants = false;
        m.append(new GroupRecord.Leave(m.logic.memberId()), null, null);
      } else if (r == 3 && !alive.isEmpty()) {
        alive.get(random.nextInt(alive.size())).stuck ^= true; // stops or resumes polling
      } else if (r == 4 && !alive.isEmpty()) {
        Member m = alive.get(random.nextInt(alive.size()));
        if (!m.wants) {
          m.join();
        }
      }
    }

    /** Appends whose time came join the log, in due order (concurrent appends may reorder). */
    void deliver() {
      inflight.sort((a, b) -> Long.compare(a.dueNs, b.dueNs));
      while (!inflight.isEmpty() && inflight.get(0).dueNs <= nowNs) {
        Pending p = inflight.remove(0);
        log.add(p.record);
        long sn = log.size();
        referee.apply(sn, p.record);
        refereeAt.add(referee.snapshot());
        checkMonotonic();
        if (p.onSn != null) {
          p.onSn.accept(sn);
        }
      }
    }

    void checkMonotonic() {
      referee
          .committed()
          .forEach(
              (cs, sn) -> {
                Long before = lastCommitted.put(cs, sn);
                assertThat(sn)
                    .as("POSITIONS_MONOTONIC: %s went from %s to %s", cs, before, sn)
                    .isGreaterThanOrEqualTo(before == null ? 0 : before);
              });
    }

    void checkConverged() {
      nowNs += 100 * MS; // everything in flight lands, every live member reads to the end
      deliver();
      for (Member m : members) {
        if (m.alive) {
          m.read(Integer.MAX_VALUE);
        }
      }
      List<String> live = new ArrayList<>();
      for (Member m : members) {
        if (m.alive) {
          live.add(m.logic.memberId());
          assertThat(m.logic.state().snapshot())
              .as("AGREEMENT at the end, member %s", m.logic.memberId())
              .isEqualTo(referee.snapshot());
        }
      }
      assertThat(referee.members().stream().map(GroupState.Member::id).sorted().toList())
          .as("CONVERGENCE: members")
          .isEqualTo(live.stream().sorted().toList());
      if (live.isEmpty()) {
        return;
      }
      assertThat(referee.needsAssignment()).as("CONVERGENCE: assigned").isFalse();
      Map<String, Integer> counts = new TreeMap<>();
      SHARDS.forEach(
          (color, ids) ->
              ids.forEach(
                  id -> {
                    GroupState.Owner o = referee.owners().get(ColorShard.of(color, id));
                    assertThat(o).as("CONVERGENCE: %s/%d owned", color, id).isNotNull();
                    assertThat(live).contains(o.member());
                    counts.merge(o.member() + color, 1, Integer::sum);
                  }));
      for (String color : SHARDS.keySet()) {
        int max = 0;
        int min = Integer.MAX_VALUE;
        for (String m : live) {
          int n = counts.getOrDefault(m + color, 0);
          max = Math.max(max, n);
          min = Math.min(min, n);
        }
        assertThat(max - min)
            .as("CONVERGENCE: %s balanced %s", color, counts)
            .isLessThanOrEqualTo(1);
      }
    }
  }

  /** A simulated consumer: production decisions, simulated reading and committing. */
  private static final class Member implements MemberLogic.Log {
    final Run run;
    final MemberLogic logic;
    int cursor; // index of the next log record to apply
    boolean alive = true;
    boolean wants;
    boolean stuck;
    final Map<ColorShard, Long> adopted = new TreeMap<>();
    final Map<ColorShard, Long> positions = new HashMap<>();
    long adoptedGeneration = -1;
    long commitSeq;

    Member(Run run, String id) {
      this.run = run;
      this.logic = new MemberLogic(id, SESSION_MS, 300 * MS, 3000 * MS, this);
    }

    void join() {
      wants = true;
      logic.join(List.of("c", "d"), run.nowNs);
    }

    void read(int n) {
      if (cursor < run.trimmedBelow - 1) {
        cursor = (int) run.trimmedBelow - 1; // overtaken by a trim: the stream continues after it
      }
      for (int i = 0; i < n && cursor < run.log.size(); i++) {
        long sn = cursor + 1;
        logic.apply(sn, run.log.get(cursor), run.nowNs);
        assertThat(logic.state().snapshot())
            .as("AGREEMENT: member %s at SN %d", logic.memberId(), sn)
            .isEqualTo(run.refereeAt.get(cursor));
        cursor++;
      }
    }

    /** What FlexLogConsumer.poll does with the assignment, then reads a little of each shard. */
    void poll() {
      logic.notePoll(run.nowNs);
      GroupState s = logic.state();
      Map<ColorShard, Long> owned = new TreeMap<>();
      if (s.member(logic.memberId()) != null) {
        s.owners()
            .forEach(
                (cs, o) -> {
                  if (o.member().equals(logic.memberId())) {
                    owned.put(cs, o.sinceGeneration());
                  }
                });
      }
      Adoption.Change change = Adoption.diff(adopted, owned);
      change.revoked().forEach(positions::remove);
      for (ColorShard cs : change.added()) {
        positions.put(cs, s.committed().getOrDefault(cs, 0L));
      }
      adopted.clear();
      adopted.putAll(owned);
      adoptedGeneration = s.member(logic.memberId()) == null ? -1 : s.generation();
      positions.replaceAll((cs, p) -> p + run.random.nextInt(3));
    }

    void commit() {
      if (!positions.isEmpty()) {
        append(
            new GroupRecord.Commit(
                logic.memberId(), true, adoptedGeneration, ++commitSeq, Map.copyOf(positions)),
            null,
            null);
      }
    }

    void append(GroupRecord record, Runnable onFailure, LongConsumer onSn) {
      if (!alive) {
        return;
      }
      if (run.faults && run.random.nextInt(50) == 0) {
        if (onFailure != null) {
          onFailure.run(); // lost: the client's append failed
        }
        return;
      }
      run.inflight.add(new Run.Pending(record, run.nowNs + run.random.nextInt(60) * MS, onSn));
    }

    @Override
    public void append(GroupRecord record, Runnable onFailure) {
      append(record, onFailure, null);
    }

    @Override
    public void appendCheckpoint(GroupRecord.Checkpoint checkpoint, LongConsumer onSn) {
      append(checkpoint, null, onSn);
    }

    @Override
    public void trimBefore(long sn) {
      run.trimmedBelow = Math.max(run.trimmedBelow, sn);
    }

    @Override
    public List<Integer> shardIds(String color) {
      return SHARDS.getOrDefault(color, List.of());
    }
  }
}
