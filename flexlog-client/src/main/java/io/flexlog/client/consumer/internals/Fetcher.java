package io.flexlog.client.consumer.internals;

import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.ConsumerRecord;
import io.flexlog.client.consumer.Deserializer;
import io.flexlog.client.consumer.RecordDeserializationException;
import io.flexlog.client.internals.ClientCore;
import io.flexlog.core.error.TrimmedException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The consumer's reading side: one subscription per assigned color shard (a one-shard stream, or a
 * whole-color stream), opened lazily at the consumer's position, each with a window of {@code
 * fetch.max.bytes}; {@link #collect} drains them round robin without blocking and deserializes keys
 * and values (headers and timestamps as stored, docs/protocol.md#record-format). Positions are the
 * next SN to return.
 *
 * <p>A shard whose position is not known yet gets one from {@code resolve} (committed position or
 * auto.offset.reset); a stream refused because its position was trimmed gets one from {@code
 * onTrimmed}. A paused shard's stream is left undrained, so its replica stops at the window.
 *
 * <p>Threading: the consumer's thread only; streams signal {@code signal} from the client's loop.
 */
public final class Fetcher<K, V> {
  /** Where to start a shard, given why: its position is unknown, or it was trimmed. */
  public interface Positions {
    long initial(ColorShard cs);

    long afterTrim(ColorShard cs, long trimmedPosition, TrimmedException cause);
  }

  private static final class ShardFetch {
    final ColorShard cs;
    RecordStream stream;
    long position = -1;
    boolean paused;

    /** Records taken from the stream, not returned yet (the head may fail to deserialize). */
    final ArrayDeque<LogRecord> buffered = new ArrayDeque<>();

    /** The head of {@link #buffered} failed to deserialize: visit this shard first. */
    boolean poisoned;

    ShardFetch(ColorShard cs) {
      this.cs = cs;
    }
  }

  private final ClientCore core;
  private final Signal signal;
  private final Deserializer<K> keys;
  private final Deserializer<V> values;
  private final Positions positions;
  private final Map<ColorShard, ShardFetch> fetches = new TreeMap<>();
  private int rotation;

  public Fetcher(
      ClientCore core,
      Signal signal,
      Deserializer<K> keys,
      Deserializer<V> values,
      Positions positions) {
    this.core = core;
    this.signal = signal;
    this.keys = keys;
    this.values = values;
    this.positions = positions;
  }

  /** Reads exactly these shards from now on: new ones start unpositioned, others are closed. */
  public void assign(Set<ColorShard> shards) {
    for (ColorShard cs : new ArrayList<>(fetches.keySet())) {
      if (!shards.contains(cs)) {
        close(fetches.remove(cs));
      }
    }
    for (ColorShard cs : shards) {
      fetches.computeIfAbsent(cs, ShardFetch::new);
    }
  }

  public Set<ColorShard> assignment() {
    return fetches.keySet();
  }

  public boolean isAssigned(ColorShard cs) {
    return fetches.containsKey(cs);
  }

  /** Moves a shard's position; its stream reopens there at the next collect. */
  public void seek(ColorShard cs, long sn) {
    ShardFetch f = fetches.get(cs);
    close(f);
    f.position = sn;
  }

  /** The next SN to return, or -1 while unknown. */
  public long position(ColorShard cs) {
    return fetches.get(cs).position;
  }

  /** The known positions of every assigned shard. */
  public Map<ColorShard, Long> positions() {
    Map<ColorShard, Long> known = new LinkedHashMap<>();
    fetches.forEach(
        (cs, f) -> {
          if (f.position >= 0) {
            known.put(cs, f.position);
          }
        });
    return known;
  }

  public void pause(ColorShard cs, boolean paused) {
    fetches.get(cs).paused = paused;
  }

  public boolean isPaused(ColorShard cs) {
    return fetches.get(cs).paused;
  }

  /** Gives every unpaused shard a position and an open stream. */
  public void open() {
    for (ShardFetch f : fetches.values()) {
      if (f.paused || f.stream != null) {
        continue;
      }
      if (f.position < 0) {
        f.position = positions.initial(f.cs);
      }
      f.stream = core.subscribe(f.cs.color(), f.cs.shard(), f.position, signal::raise);
    }
  }

  /**
   * Takes up to {@code max} records from the unpaused shards without blocking, round robin.
   *
   * @param out gets the records per shard
   * @return the payload bytes taken
   * @throws RecordDeserializationException for a record that does not deserialize and is the first
   *     one this call would return (else it stays pending for the next call)
   */
  public long collect(int max, Map<ColorShard, List<ConsumerRecord<K, V>>> out) {
    List<ShardFetch> order = new ArrayList<>(fetches.size());
    for (ShardFetch f : fetches.values()) {
      if (f.poisoned) {
        order.add(f); // its failing record must come first, so that it can be reported
      }
    }
    int n = fetches.size();
    List<ShardFetch> all = new ArrayList<>(fetches.values());
    rotation++;
    for (int i = 0; i < n; i++) {
      ShardFetch f = all.get(Math.floorMod(rotation + i, n));
      if (!f.poisoned) {
        order.add(f);
      }
    }
    long bytes = 0;
    int taken = 0;
    for (ShardFetch f : order) {
      if (taken >= max) {
        break;
      }
      if (f.paused || f.stream == null) {
        continue;
      }
      fill(f, max - taken);
      List<ConsumerRecord<K, V>> list = null;
      while (taken < max && !f.buffered.isEmpty()) {
        LogRecord r = f.buffered.peekFirst();
        ConsumerRecord<K, V> record = deserialize(f, r, taken == 0);
        if (record == null) {
          break;
        }
        f.buffered.pollFirst();
        if (list == null) {
          list = out.computeIfAbsent(f.cs, cs -> new ArrayList<>());
        }
        list.add(record);
        f.position = r.sn() + 1;
        bytes += r.payload().length;
        taken++;
      }
    }
    return bytes;
  }

  /** Tops up a shard's buffer from its stream, under one lock of the stream's queue. */
  private void fill(ShardFetch f, int max) {
    if (!f.buffered.isEmpty()) {
      return;
    }
    try {
      f.stream.drainTo(f.buffered::addLast, max);
    } catch (TrimmedException e) {
      long trimmed = f.position;
      close(f);
      f.position = positions.afterTrim(f.cs, trimmed, e);
    }
  }

  private ConsumerRecord<K, V> deserialize(ShardFetch f, LogRecord r, boolean first) {
    try {
      ConsumerRecord<K, V> record = toConsumerRecord(f.cs.shard(), r, keys, values);
      f.poisoned = false;
      return record;
    } catch (RuntimeException e) {
      f.poisoned = true;
      f.position = r.sn();
      if (first) {
        throw new RecordDeserializationException(f.cs, r.sn(), e);
      }
      return null;
    }
  }

  /**
   * The consumer's view of a record read from {@code shard}: key and value deserialized (a record
   * without a key gets a null key, the key deserializer is not called), headers and timestamp as
   * stored (docs/protocol.md#record-format).
   *
   * @throws RuntimeException whatever a deserializer throws
   */
  static <K, V> ConsumerRecord<K, V> toConsumerRecord(
      int shard, LogRecord r, Deserializer<K> keys, Deserializer<V> values) {
    byte[] keyBytes = r.key();
    K key = keyBytes == null ? null : keys.deserialize(r.color(), keyBytes);
    V value = values.deserialize(r.color(), r.payload());
    return new ConsumerRecord<>(
        r.color(),
        shard,
        r.sn(),
        key,
        value,
        r.headers(),
        r.timestampMs(),
        keyBytes == null ? -1 : keyBytes.length,
        r.payload().length);
  }

  /** Closes every stream. */
  public void closeAll() {
    fetches.values().forEach(this::close);
  }

  private void close(ShardFetch f) {
    if (f != null) {
      if (f.stream != null) {
        f.stream.close();
        f.stream = null;
      }
      f.buffered.clear();
      f.poisoned = false;
    }
  }

  /** Positions keyed for a commit, restricted to {@code filter}. */
  public Map<ColorShard, Long> positions(Function<ColorShard, Boolean> filter) {
    Map<ColorShard, Long> result = new HashMap<>();
    positions()
        .forEach(
            (cs, sn) -> {
              if (filter.apply(cs)) {
                result.put(cs, sn);
              }
            });
    return result;
  }
}
