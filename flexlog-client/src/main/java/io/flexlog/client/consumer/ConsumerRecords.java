package io.flexlog.client.consumer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The records of one {@link FlexLogConsumer#poll}, grouped by what they were read from. Within a
 * {@link ColorShard} they are in SN order; iteration visits the groups one after the other.
 */
public final class ConsumerRecords<K, V> implements Iterable<ConsumerRecord<K, V>> {
  private static final ConsumerRecords<?, ?> EMPTY = new ConsumerRecords<>(Map.of());

  private final Map<ColorShard, List<ConsumerRecord<K, V>>> records;

  public ConsumerRecords(Map<ColorShard, List<ConsumerRecord<K, V>>> records) {
    this.records = Collections.unmodifiableMap(new LinkedHashMap<>(records));
  }

  @SuppressWarnings("unchecked")
  public static <K, V> ConsumerRecords<K, V> empty() {
    return (ConsumerRecords<K, V>) EMPTY;
  }

  /** The records read from {@code colorShard}, in SN order (empty if none). */
  public List<ConsumerRecord<K, V>> records(ColorShard colorShard) {
    return records.getOrDefault(colorShard, List.of());
  }

  /** What records were read from in this poll. */
  public Set<ColorShard> colorShards() {
    return records.keySet();
  }

  public int count() {
    int count = 0;
    for (List<ConsumerRecord<K, V>> list : records.values()) {
      count += list.size();
    }
    return count;
  }

  public boolean isEmpty() {
    return records.isEmpty();
  }

  @Override
  public Iterator<ConsumerRecord<K, V>> iterator() {
    List<ConsumerRecord<K, V>> all = new ArrayList<>(count());
    records.values().forEach(all::addAll);
    return Collections.unmodifiableList(all).iterator();
  }
}
