package io.flexlog.client;

import io.flexlog.client.internals.ClientCore;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.model.Topology;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * A client of a FlexLog cluster: append records to colors, read them back by sequence number, and
 * subscribe to a color's totally ordered stream.
 *
 * <pre>{@code
 * try (FlexLog log = FlexLog.connect("127.0.0.1:7070")) {
 *   long sn = log.append("global", "hello".getBytes(StandardCharsets.UTF_8));
 *   Optional<LogRecord> record = log.read("global", sn);
 *   try (Subscription tail = log.subscribe("global", 0, r -> System.out.println(r.sn()))) {
 *     ...
 *   }
 * }
 * }</pre>
 *
 * <p>Colors and shards: an append to color {@code c} lands on one shard attached to {@code c} or a
 * color below it, chosen round robin, or by the hash of a key ({@link #append(String, byte[],
 * byte[])}) so that records with the same key share a shard. Reads and subscriptions ask every
 * shard of that subtree. The client refetches the topology when a node says a color or shard is
 * unknown, so colors created after {@code connect} are usable at once.
 *
 * <p>Sequence numbers are positive {@code long}s, {@code epoch << 32 | counter} (see {@link
 * io.flexlog.core.model.Sn}); they strictly increase per color but are not dense. Print and parse
 * them as plain decimal numbers; {@code Sn.describe(sn)} gives {@code epoch.counter} for humans.
 *
 * <p>An append is durable and replicated when it returns: every replica of the chosen shard has
 * committed the record at the returned SN, so any later read on any replica sees it. SNs of a color
 * strictly increase: an append that completed before another began has the smaller SN. Retries
 * after timeouts reuse the append's token, so a retried append never creates a second record.
 *
 * <p>Thread-safe: one instance can serve many threads; it holds one event-loop thread and one
 * connection per node; each handler subscription adds one thread. Errors are unchecked {@link
 * FlexLogException}s: {@code UnknownColorException}, {@code RecordTooLargeException}, {@code
 * StorageFullException}, {@code FlexLogTimeoutException}, {@code TrimmedException}, {@code
 * InvalidArgumentException}.
 */
public final class FlexLog implements AutoCloseable {
  private final ClientCore core;
  private final FlexLogConfig config;

  private FlexLog(ClientCore core, FlexLogConfig config) {
    this.core = core;
    this.config = config;
  }

  /** Connects to the cluster behind a comma-separated list of {@code host:port}. */
  public static FlexLog connect(String bootstrapServers) {
    return connect(FlexLogConfig.builder().bootstrapServers(bootstrapServers).build());
  }

  public static FlexLog connect(FlexLogConfig config) {
    return new FlexLog(ClientCore.connect(config), config);
  }

  /**
   * Appends a record to a color and waits until every replica of the shard has committed it.
   *
   * @return the record's sequence number in the color
   * @throws io.flexlog.core.error.UnknownColorException if the color does not exist
   * @throws io.flexlog.core.error.RecordTooLargeException if over the cluster's max-record-bytes
   * @throws io.flexlog.core.error.FlexLogTimeoutException after delivery.timeout.ms; the outcome is
   *     unknown (the record may still appear, never twice)
   */
  public long append(String color, byte[] payload) {
    return await(appendAsync(color, payload));
  }

  /**
   * Appends without waiting. The array is sent without a copy: do not modify it until the future
   * completes.
   */
  public CompletableFuture<Long> appendAsync(String color, byte[] payload) {
    return core.append(color, null, Unpooled.wrappedBuffer(payload));
  }

  /**
   * Appends a record to the shard of the color that {@code key} hashes to (32-bit FNV-1a of the
   * key, modulo the number of shards in the color's subtree, sorted by shard id). Records with
   * equal keys land on the same shard while the color's shards stay the same. The key itself is not
   * stored.
   *
   * @see #append(String, byte[])
   */
  public long append(String color, byte[] key, byte[] payload) {
    return await(appendAsync(color, key, payload));
  }

  /** {@link #append(String, byte[], byte[])} without waiting. */
  public CompletableFuture<Long> appendAsync(String color, byte[] key, byte[] payload) {
    if (key == null) {
      throw new io.flexlog.core.error.InvalidArgumentException("the key must not be null");
    }
    return core.append(color, key, Unpooled.wrappedBuffer(payload));
  }

  /**
   * Appends records to several colors atomically: either every record appears in its color, or none
   * does, also if this client crashes midway (docs/architecture.md#atomic-multi-color-append, paper
   * §6.4). The records are first staged on every replica of a shard of the broker color ({@code
   * atomic.broker.color}, default {@code global}); once all are staged, the group is committed and
   * the replicas place each record in its color with the record's own token, so no record ever
   * appears twice.
   *
   * <pre>{@code
   * Map<String, long[]> sns = log.appendAtomically(Map.of(
   *     "orders", List.of(order),
   *     "payments", List.of(debit, credit)));
   * long debitSn = sns.get("payments")[0];
   * }</pre>
   *
   * <p>Records of one color keep their list order in that color, but records of other writers may
   * come between them. Each color's SNs strictly increase as usual.
   *
   * @return per color, the SNs of its records in list order
   * @throws io.flexlog.core.error.InvalidArgumentException for no records, a null record, or more
   *     than 4096 records
   * @throws io.flexlog.core.error.UnknownColorException if a color (or the broker color) does not
   *     exist; nothing is staged then
   * @throws io.flexlog.core.error.RecordTooLargeException naming the record over max-record-bytes
   *     <p>Outcomes (see {@code docs/atomic-append.md}): until the group is committed, every
   *     failure is typed and final, and none of the records will appear. Once the client sent the
   *     commit to any replica, the group may appear, so it only ends with the SNs, with {@link
   *     io.flexlog.core.error.GroupAbortedException} (every replica of the broker shard aborted it,
   *     so nothing appears), with {@link io.flexlog.core.error.AtomicMemberFailedException}
   *     (committed, but a record could not be placed for good after a topology change), or with
   *     {@link io.flexlog.core.error.AtomicOutcomeUnknownException} (no answer by
   *     delivery.timeout.ms: it may still appear, all records or none). It retries the commit on
   *     every replica until then.
   * @throws io.flexlog.core.error.FlexLogTimeoutException after delivery.timeout.ms when the group
   *     was not staged on every replica yet; nothing was committed then
   * @throws io.flexlog.core.error.AtomicOutcomeUnknownException after delivery.timeout.ms when the
   *     group was committed but no replica answered; the message names the group id
   * @throws io.flexlog.core.error.GroupAbortedException when every replica aborted the group
   * @throws io.flexlog.core.error.AtomicMemberFailedException naming the records that could not be
   *     placed (the others were)
   */
  public Map<String, long[]> appendAtomically(Map<String, List<byte[]>> records) {
    return await(appendAtomicallyAsync(records));
  }

  /**
   * {@link #appendAtomically} without waiting. The arrays are sent without a copy: do not modify
   * them until the future completes. Invalid input fails the future before anything is sent.
   */
  public CompletableFuture<Map<String, long[]>> appendAtomicallyAsync(
      Map<String, List<byte[]>> records) {
    return core.appendAtomically(records);
  }

  /**
   * Reads the record of a color at an SN.
   *
   * @return the record, or empty if there is no record at that SN (a hole: SNs are not dense)
   * @throws io.flexlog.core.error.TrimmedException if the SN is at or below the trim point
   * @throws io.flexlog.core.error.SnBeyondTailException if the SN is above the color's tail: its
   *     ordering role had not issued it when the read was made (answered at once)
   * @throws io.flexlog.core.error.FlexLogTimeoutException if no replica could decide within
   *     read.timeout.ms (for example an SN not yet assigned)
   */
  public Optional<LogRecord> read(String color, long sn) {
    return await(readAsync(color, sn));
  }

  public CompletableFuture<Optional<LogRecord>> readAsync(String color, long sn) {
    return core.read(color, sn);
  }

  /**
   * Subscribes to a color: {@code handler} receives, on the subscription's own thread, every record
   * of the color with an SN {@code >= fromSn} in SN order, then new records as they commit, until
   * the subscription is closed. Every subscriber of a color sees the same records in the same order
   * (holes aside, the sequence is gap-free): a record is delivered only once every shard of the
   * color has reported that no smaller SN can still appear.
   *
   * <p>Resuming: subscribe from {@code subscription.lastSn() + 1} (or any stored SN + 1) to
   * continue without repeats or gaps; {@code fromSn = 0} starts at the beginning. If the replica a
   * shard is streamed from fails, the subscription moves to another replica of the shard and
   * continues where it stopped.
   *
   * @throws io.flexlog.core.error.UnknownColorException if the color does not exist (after one
   *     topology refresh)
   * @throws io.flexlog.core.error.InvalidArgumentException if {@code fromSn < 0}
   */
  public Subscription subscribe(String color, long fromSn, RecordHandler handler) {
    return core.subscribe(color, fromSn, handler);
  }

  /**
   * Subscribes to a color, to be read with {@link RecordStream#poll} or by iteration. Same order,
   * resumption and errors as {@link #subscribe(String, long, RecordHandler)}.
   */
  public RecordStream subscribe(String color, long fromSn) {
    return core.subscribe(color, fromSn);
  }

  /**
   * Subscribes to the records of a color stored on one shard of its subtree ({@code
   * topology().shardsInSubtree}), to be read with {@link RecordStream#poll}: that shard's records
   * of the color with an SN {@code >= fromSn}, in SN order, then live. Records with the same append
   * key share a shard, so this is the per-key order without waiting for the other shards; the
   * streams of several shards together are not in the color's total order. Resumption, failover and
   * errors as in {@link #subscribe(String, long)}.
   *
   * @throws io.flexlog.core.error.InvalidArgumentException if the shard is not in the color's
   *     subtree or {@code fromSn < 0}
   */
  public RecordStream subscribeShard(String color, int shardId, long fromSn) {
    return core.subscribeShard(color, shardId, fromSn);
  }

  /**
   * Trims a color (docs/architecture.md#trim): every record of the color at or below {@code sn} is
   * dropped on every replica of every shard in the color's subtree, and later reads of those SNs
   * throw {@code TrimmedException}. Returns once every replica recorded the trim point durably.
   *
   * @return the new trim point (head = trim point + 1) and the color's tail
   * @throws io.flexlog.core.error.InvalidArgumentException if {@code sn < 1} or {@code sn} lies
   *     beyond the tail of the color on some replica (nothing can be trimmed that was not assigned)
   * @throws io.flexlog.core.error.UnknownColorException if the color does not exist
   * @throws io.flexlog.core.error.FlexLogTimeoutException if some replica did not answer within
   *     request.timeout.ms
   */
  public TrimResult trim(String color, long sn) {
    return await(trimAsync(color, sn));
  }

  /** {@link #trim(String, long)} without waiting. */
  public CompletableFuture<TrimResult> trimAsync(String color, long sn) {
    return core.trim(color, sn);
  }

  /**
   * Where a color's log starts and ends (docs/architecture.md#head-and-tail): the head (the first
   * SN that is not trimmed) from a replica of each shard of the color's subtree, the tail (the last
   * SN the color's ordering role issued) from its sequencer node. Records appended before this call
   * returns have SNs at most the tail; a read above it throws {@link
   * io.flexlog.core.error.SnBeyondTailException}, and {@code subscribe(color, tail + 1)} sees only
   * what is appended later.
   *
   * <pre>{@code
   * ColorTail bounds = log.tail("orders");
   * for (long sn = bounds.head(); sn <= bounds.tail(); sn++) { ... log.read("orders", sn) ... }
   * }</pre>
   *
   * @throws io.flexlog.core.error.UnknownColorException if the color does not exist
   * @throws io.flexlog.core.error.FlexLogTimeoutException naming the node that did not answer
   *     within request.timeout.ms
   */
  public ColorTail tail(String color) {
    return await(tailAsync(color));
  }

  /** {@link #tail(String)} without waiting. */
  public CompletableFuture<ColorTail> tailAsync(String color) {
    return core.tail(color);
  }

  /** The settings this client was connected with ({@link FlexLogAdmin#create(FlexLog)}). */
  FlexLogConfig config() {
    return config;
  }

  /** The cluster's topology as last fetched. */
  public Topology topology() {
    return core.topology();
  }

  /** The largest record the cluster accepts, in bytes. */
  public int maxRecordBytes() {
    return core.maxRecordBytes();
  }

  @Override
  public void close() {
    core.close();
  }

  /** The future's value, or its failure as a FlexLogException; shared with FlexLogAdmin. */
  static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FlexLogException("interrupted", e);
    } catch (ExecutionException | CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof FlexLogException f) {
        throw f;
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      throw new FlexLogException(String.valueOf(cause), cause);
    }
  }
}
