package io.flexlog.client.consumer;

import io.flexlog.client.consumer.internals.Fetcher;
import io.flexlog.client.consumer.internals.GroupMember;
import io.flexlog.client.consumer.internals.Rebalancer;
import io.flexlog.client.consumer.internals.Signal;
import io.flexlog.client.internals.ClientCore;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A Kafka-style consumer of FlexLog colors: {@code poll} in a loop, positions committed in FlexLog
 * itself, and consumer groups that split the work (docs/architecture.md#consumer-groups).
 *
 * <pre>{@code
 * Properties p = new Properties();
 * p.setProperty("bootstrap.servers", "127.0.0.1:7070");
 * p.setProperty("group.id", "billing");
 * p.setProperty("value.deserializer", Deserializers.StringDeserializer.class.getName());
 * try (FlexLogConsumer<byte[], String> consumer = new FlexLogConsumer<>(p)) {
 *   consumer.subscribe(List.of("orders"));
 *   while (running) {
 *     for (ConsumerRecord<byte[], String> r : consumer.poll(Duration.ofMillis(100))) {
 *       process(r.color(), r.shard(), r.sn(), r.value());
 *     }
 *   }
 * }
 * }</pre>
 *
 * <p><b>Two ways to consume.</b>
 *
 * <ol>
 *   <li><b>A whole color in its total order</b>: {@code assign(List.of(ColorShard.wholeColor(c)))}.
 *       One consumer reads every record of the color in SN order, the order every subscriber of the
 *       color sees (what {@code FlexLog.subscribe} gives). Its position is one SN for the color.
 *   <li><b>A consumer group</b>: {@code subscribe(colors)} with a {@code group.id}. The members of
 *       the group split each color's shards among themselves; each member reads each of its shards
 *       in SN order (records appended with the same key share a shard, so they stay in order:
 *       Kafka's partition semantics), but records of different shards are not ordered against each
 *       other. When members join, leave or die, the shards are reassigned (cooperatively: only the
 *       shards that move stop). {@code assign(ColorShard.of(c, shard))} reads one shard without
 *       membership.
 * </ol>
 *
 * Either way, a consumer starts each color shard right after its last committed position (the next
 * SN to read), or by {@code auto.offset.reset} if it has none.
 *
 * <p><b>Committed positions</b> are records of the group's internal color {@code
 * flexlog.group.<group.id>} (created on first use), durable and replicated like any record; every
 * member applies that log in its total order, which is how members agree on membership, on the
 * assignment and on which commits count. A commit of a shard that its member no longer owns is
 * rejected with {@link CommitFailedException} (generation fencing). Processing is at least once:
 * records read after the last commit are read again by whoever gets the shard next.
 *
 * <p>Keys, headers and timestamps: records written by {@code FlexLogProducer} come back with their
 * key (deserialized with {@code key.deserializer}), headers and timestamp as produced, and their
 * value decompressed; records appended with {@code FlexLog.append} have none (see {@link
 * ConsumerRecord}).
 *
 * <p>Threading: not thread-safe, like Kafka's consumer: one thread calls everything except {@link
 * #wakeup}, which any thread may call to make a blocked {@code poll} throw {@link WakeupException}.
 * Rebalance listeners and commit callbacks run on the polling thread.
 */
public final class FlexLogConsumer<K, V> implements AutoCloseable {
  private final ConsumerConfig config;
  private final ClientCore core;
  private final Signal signal = new Signal();
  private final AtomicBoolean wakeup = new AtomicBoolean();
  private final Fetcher<K, V> fetcher;
  private final StartPositions starts;
  private final GroupMember member;
  private final String clientId;
  private final CommitCallbacks callbacks;
  private final Rebalancer rebalancer;
  private List<String> subscribed = List.of();
  private boolean manual;
  private boolean closed;

  /** Reads the deserializers from {@code key.deserializer} and {@code value.deserializer}. */
  public FlexLogConsumer(Properties properties) {
    this(ConsumerConfig.fromProperties(properties), null, null);
  }

  public FlexLogConsumer(
      Properties properties, Deserializer<K> keyDeserializer, Deserializer<V> valueDeserializer) {
    this(ConsumerConfig.fromProperties(properties), keyDeserializer, valueDeserializer);
  }

  /**
   * @param keyDeserializer null: from {@code key.deserializer}
   * @param valueDeserializer null: from {@code value.deserializer}
   * @throws io.flexlog.core.config.ConfigException for a bad setting, naming the key
   * @throws GroupColorMissingException if the group's color is missing and cannot be created
   */
  @SuppressWarnings("unchecked")
  public FlexLogConsumer(
      ConsumerConfig config, Deserializer<K> keyDeserializer, Deserializer<V> valueDeserializer) {
    this.config = config;
    Deserializer<K> keys =
        keyDeserializer != null ? keyDeserializer : (Deserializer<K>) config.keyDeserializer();
    Deserializer<V> values =
        valueDeserializer != null
            ? valueDeserializer
            : (Deserializer<V>) config.valueDeserializer();
    this.clientId =
        config.clientId().isEmpty()
            ? "consumer-" + ProcessHandle.current().pid()
            : config.clientId();
    this.core = ClientCore.connect(config.client());
    GroupMember created;
    try {
      created = GroupColors.memberOf(core, config, clientId);
    } catch (RuntimeException e) {
      core.close();
      throw e;
    }
    this.member = created;
    this.starts = new StartPositions(core, config, created, () -> manual);
    this.fetcher = new Fetcher<>(core, signal, keys, values, starts);
    this.rebalancer = new Rebalancer(fetcher);
    this.callbacks = new CommitCallbacks(config.autoCommitInterval());
  }

  // ------------------------------------------------------------------ what to read

  /** {@link #subscribe(Collection, ConsumerRebalanceListener)} without a listener. */
  public void subscribe(Collection<String> colors) {
    subscribe(colors, ConsumerRebalanceListener.NONE);
  }

  /**
   * Joins the group ({@code group.id}) for these colors: the group assigns this member a share of
   * their shards at a later {@code poll}, and moves shards as members come and go, telling {@code
   * listener}. Replaces an earlier subscription.
   *
   * @throws IllegalStateException without a group.id, or after {@link #assign}
   */
  public void subscribe(Collection<String> colors, ConsumerRebalanceListener listener) {
    checkOpen();
    if (member == null) {
      throw new IllegalStateException("subscribe needs a group.id; use assign without a group");
    }
    if (manual) {
      throw new IllegalStateException("subscribe after assign: call unsubscribe first");
    }
    for (String color : colors) {
      core.color(color); // UnknownColorException now rather than an empty assignment later
    }
    this.subscribed = List.copyOf(new TreeSet<>(colors));
    rebalancer.listener(listener);
    member.join(subscribed);
  }

  /**
   * Reads exactly these color shards, without group membership ({@link ColorShard#wholeColor} for a
   * color's total order, {@link ColorShard#of} for one shard). Positions can still be committed
   * with a group.id, for shards no group member owns.
   *
   * @throws IllegalStateException after {@link #subscribe}
   */
  public void assign(Collection<ColorShard> shards) {
    checkOpen();
    if (!subscribed.isEmpty()) {
      throw new IllegalStateException("assign after subscribe: call unsubscribe first");
    }
    for (ColorShard cs : shards) {
      core.color(cs.color());
    }
    manual = !shards.isEmpty();
    fetcher.assign(new TreeSet<>(shards));
  }

  /** Stops reading everything; leaves the group if it had joined. */
  public void unsubscribe() {
    checkOpen();
    if (!subscribed.isEmpty()) {
      rebalancer.revokeAll();
      member.leave();
      subscribed = List.of();
    }
    manual = false;
    fetcher.assign(Set.of());
    rebalancer.reset();
  }

  public Set<ColorShard> assignment() {
    checkOpen();
    return Set.copyOf(fetcher.assignment());
  }

  public Set<String> subscription() {
    return Set.copyOf(subscribed);
  }

  // ------------------------------------------------------------------ poll

  /**
   * Returns the next records of the assigned shards, waiting up to {@code timeout} for some; at
   * most {@code max.poll.records}. Inside, it also applies rebalances (calling the listener),
   * auto-commits and runs finished commit callbacks. The positions move past what it returns.
   *
   * @throws IllegalStateException if nothing was subscribed or assigned
   * @throws WakeupException if {@link #wakeup} was called
   * @throws RecordDeserializationException naming the color, shard and SN of a record that does not
   *     deserialize; the position stays there, {@code seek} past it to go on
   * @throws NoPositionException / PositionOutOfRangeException with {@code auto.offset.reset=none}
   */
  public ConsumerRecords<K, V> poll(Duration timeout) {
    checkOpen();
    if (subscribed.isEmpty() && !manual) {
      throw new IllegalStateException(
          "poll without a subscription: call subscribe(colors) or assign(shards) first");
    }
    long now = System.nanoTime();
    long deadline = now + Math.max(0, timeout.toNanos());
    long fetchWaitEnd = Long.MAX_VALUE;
    Map<ColorShard, List<ConsumerRecord<K, V>>> out = new LinkedHashMap<>();
    long bytes = 0;
    int count = 0;
    while (true) {
      checkWakeup();
      callbacks.run();
      if (member != null) {
        member.notePoll();
        if (!subscribed.isEmpty()) {
          rebalancer.adopt(member.assignment());
        }
      }
      maybeAutoCommit(now);
      fetcher.open();
      bytes += fetcher.collect(config.maxPollRecords() - count, out);
      count = 0;
      for (List<ConsumerRecord<K, V>> list : out.values()) {
        count += list.size();
      }
      now = System.nanoTime();
      if (count > 0 && fetchWaitEnd == Long.MAX_VALUE) {
        fetchWaitEnd = now + config.fetchMaxWait().toNanos();
      }
      boolean enough = count >= config.maxPollRecords() || bytes >= config.fetchMinBytes();
      long waitUntil = count > 0 ? Math.min(deadline, fetchWaitEnd) : deadline;
      if (enough || now - waitUntil >= 0) {
        return out.isEmpty() ? ConsumerRecords.empty() : new ConsumerRecords<>(out);
      }
      await(Math.min(waitUntil - now, 100_000_000L));
      now = System.nanoTime();
    }
  }

  private void await(long ns) {
    try {
      signal.await(ns);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WakeupException("interrupted while polling", e);
    }
  }

  private void checkWakeup() {
    if (wakeup.getAndSet(false)) {
      throw new WakeupException("the consumer was woken up");
    }
  }

  /** Wakes a blocked {@link #poll} (or the next one) with {@link WakeupException}; any thread. */
  public void wakeup() {
    wakeup.set(true);
    signal.raise();
  }

  // ------------------------------------------------------------------ positions

  /**
   * Reads {@code cs} from {@code sn} on at the next poll.
   *
   * @throws IllegalStateException if {@code cs} is not assigned to this consumer
   * @throws IllegalArgumentException if {@code sn < 0}
   */
  public void seek(ColorShard cs, long sn) {
    checkAssigned(cs);
    if (sn < 0) {
      throw new IllegalArgumentException("an SN to seek to is >= 0, got " + sn);
    }
    fetcher.seek(cs, sn);
  }

  /** Seeks to the first record still stored (0: after the trim point). */
  public void seekToBeginning(Collection<ColorShard> shards) {
    shards.forEach(cs -> seek(cs, 0));
  }

  /** Seeks past the last record of each color (its tail when this is called). */
  public void seekToEnd(Collection<ColorShard> shards) {
    shards.forEach(this::checkAssigned);
    starts.bounds(shards, true).forEach(this::seek);
  }

  /**
   * The first SN a poll of each shard can still return: its color's trim point + 1, or 1 (Kafka's
   * {@code beginningOffsets}). One query per color; the shards need not be assigned.
   */
  public Map<ColorShard, Long> beginningPositions(Collection<ColorShard> shards) {
    checkOpen();
    return starts.bounds(shards, false);
  }

  /**
   * The SN after each shard's color's tail as of now (Kafka's {@code endOffsets}): a consumer at it
   * has read everything appended before. SNs number the whole color's records across epochs, so an
   * end minus a position is no record count. One query per color; the shards need not be assigned.
   */
  public Map<ColorShard, Long> endPositions(Collection<ColorShard> shards) {
    checkOpen();
    return starts.bounds(shards, true);
  }

  /** The next SN a poll returns from {@code cs}, finding it first if unknown. */
  public long position(ColorShard cs) {
    checkAssigned(cs);
    long position = fetcher.position(cs);
    if (position < 0) {
      position = starts.initial(cs);
      fetcher.seek(cs, position);
    }
    return position;
  }

  /**
   * The committed positions (next SN to read) of these shards, as of now: it waits until the group
   * log has been applied up to this call. Shards without a commit are absent.
   */
  public Map<ColorShard, Long> committed(Set<ColorShard> shards) {
    GroupMember m = requireGroup("committed");
    await(m.sync(), "reading committed positions");
    Map<ColorShard, Long> all = m.committed();
    Map<ColorShard, Long> result = new HashMap<>();
    for (ColorShard cs : shards) {
      if (all.containsKey(cs)) {
        result.put(cs, all.get(cs));
      }
    }
    return result;
  }

  /** Pauses reading these shards (their positions stay); a paused shard returns nothing. */
  public void pause(Collection<ColorShard> shards) {
    shards.forEach(
        cs -> {
          checkAssigned(cs);
          fetcher.pause(cs, true);
        });
  }

  public void resume(Collection<ColorShard> shards) {
    shards.forEach(
        cs -> {
          checkAssigned(cs);
          fetcher.pause(cs, false);
        });
  }

  public Set<ColorShard> paused() {
    Set<ColorShard> paused = new TreeSet<>();
    for (ColorShard cs : fetcher.assignment()) {
      if (fetcher.isPaused(cs)) {
        paused.add(cs);
      }
    }
    return paused;
  }

  // ------------------------------------------------------------------ commits

  /** Commits the positions of every assigned shard (what poll returned so far) and waits. */
  public void commitSync() {
    commitSync(fetcher.positions());
  }

  /**
   * Commits these positions (the next SN to read per shard) and waits until the group log has
   * decided.
   *
   * @throws CommitFailedException if the group log rejected it (the member lost a shard to a
   *     rebalance, or was removed from the group); nothing of it was stored
   */
  public void commitSync(Map<ColorShard, Long> positions) {
    checkOpen();
    if (positions.isEmpty()) {
      return;
    }
    await(commit(positions), "committing " + positions);
  }

  /** Commits the positions of every assigned shard without waiting. */
  public void commitAsync() {
    commitAsync(fetcher.positions(), null);
  }

  /** Commits without waiting; {@code callback} (if not null) runs in a later poll or commit. */
  public void commitAsync(Map<ColorShard, Long> positions, CommitCallback callback) {
    checkOpen();
    Map<ColorShard, Long> copy = Map.copyOf(positions);
    callbacks.track(commit(copy), copy, callback);
  }

  private CompletableFuture<Void> commit(Map<ColorShard, Long> positions) {
    GroupMember m = requireGroup("commit");
    for (Map.Entry<ColorShard, Long> e : positions.entrySet()) {
      if (e.getValue() < 0) {
        throw new IllegalArgumentException(
            "position of " + e.getKey() + " is < 0: " + e.getValue());
      }
    }
    return m.commit(positions, rebalancer.generation(), !subscribed.isEmpty());
  }

  private void maybeAutoCommit(long now) {
    if (member != null && config.enableAutoCommit() && callbacks.autoCommitDue(now)) {
      Map<ColorShard, Long> positions = fetcher.positions();
      if (!positions.isEmpty()) {
        commitAsync(positions, null);
      }
    }
  }

  // ------------------------------------------------------------------ close

  @Override
  public void close() {
    close(Duration.ofSeconds(30));
  }

  /**
   * Commits (with enable.auto.commit), leaves the group so that its shards move at once, and
   * releases the connections; waits at most {@code timeout} for the commit and the leave.
   */
  public void close(Duration timeout) {
    if (closed) {
      return;
    }
    closed = true;
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      if (member != null) {
        Map<ColorShard, Long> positions = fetcher.positions();
        if (config.enableAutoCommit() && !positions.isEmpty()) {
          Futures.quietly(
              member.commit(positions, rebalancer.generation(), !subscribed.isEmpty()), deadline);
        }
        if (!subscribed.isEmpty()) {
          Futures.quietly(member.leave(), deadline);
        }
      }
      callbacks.run();
    } finally {
      fetcher.closeAll();
      if (member != null) {
        member.close();
      }
      core.close();
    }
  }

  private void await(CompletableFuture<?> future, String what) {
    Futures.await(future, config.client().deliveryTimeout(), what);
    callbacks.run();
  }

  // ------------------------------------------------------------------ helpers

  private GroupMember requireGroup(String what) {
    checkOpen();
    if (member == null) {
      throw new IllegalStateException(what + " needs a group.id");
    }
    return member;
  }

  private void checkAssigned(ColorShard cs) {
    checkOpen();
    if (!fetcher.isAssigned(cs)) {
      throw new IllegalStateException(cs + " is not assigned to this consumer");
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("this consumer is closed");
    }
  }
}
