package io.flexlog.core.record;

import java.util.Arrays;
import java.util.Objects;

/**
 * One header of a record: a name and an optional value, stored with the record (see {@link
 * RecordFormatDescriptor}).
 *
 * @param key the header's name, not null
 * @param value its bytes, or null; the array is not copied
 */
public record RecordHeader(String key, byte[] value) {
  public RecordHeader {
    Objects.requireNonNull(key, "header key");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RecordHeader h && key.equals(h.key) && Arrays.equals(value, h.value);
  }

  @Override
  public int hashCode() {
    return 31 * key.hashCode() + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return key + "=" + (value == null ? "null" : value.length + " bytes");
  }
}
