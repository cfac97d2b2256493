package io.flexlog.replica.storage.chunk;

/** Engine-specific durability of a byte range of one chunk (cache-line flush, msync, force). */
@FunctionalInterface
public interface RangeFlusher {
  /** Does nothing: the page cache keeps the bytes across a process crash. */
  RangeFlusher NONE = (offset, length) -> {};

  void flush(int offset, int length);
}
