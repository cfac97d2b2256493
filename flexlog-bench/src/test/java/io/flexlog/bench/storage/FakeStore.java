package io.flexlog.bench.storage;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory store with a capacity per log: appends only count, reads produce the record from the
 * pattern, so the harness can be tested without an engine. Knobs make it slow to replace a full
 * log, corrupt one byte of every read, or fail to open.
 */
class FakeStore implements RecordStore {
  final RecordPattern pattern;
  final long capacityRecords;
  long makeRoomMillis;
  boolean corruptBody;
  boolean failOpen;
  final AtomicInteger opened = new AtomicInteger();
  final AtomicInteger closedLogs = new AtomicInteger();

  FakeStore(RecordPattern pattern, long capacityRecords) {
    this.pattern = pattern;
    this.capacityRecords = capacityRecords;
  }

  @Override
  public String name() {
    return "fake";
  }

  @Override
  public String description() {
    return "in-memory fake";
  }

  @Override
  public RecordLog openLog(int thread) {
    if (failOpen) {
      throw new io.flexlog.replica.storage.StorageException("cannot open fake log " + thread);
    }
    opened.incrementAndGet();
    return new FakeLog(thread);
  }

  @Override
  public void close() {}

  private final class FakeLog implements RecordLog {
    private final int thread;
    private long written;
    private long first;

    FakeLog(int thread) {
      this.thread = thread;
    }

    @Override
    public boolean append() {
      if (written - first == capacityRecords) {
        return false;
      }
      written++;
      return true;
    }

    @Override
    public void preload(int records) {
      written += records;
    }

    @Override
    public int read(long recordNumber, byte[] destination) {
      if (recordNumber < first || recordNumber >= written) {
        throw new IllegalStateException("record " + recordNumber + " is not in the fake log");
      }
      byte[] record = pattern.newRecord(RecordPattern.key(thread, recordNumber));
      if (corruptBody) {
        record[record.length - 1] ^= 0x40;
      }
      System.arraycopy(record, 0, destination, 0, record.length);
      return record.length;
    }

    @Override
    public long written() {
      return written;
    }

    @Override
    public long firstRecord() {
      return first;
    }

    @Override
    public void makeRoom() {
      try {
        Thread.sleep(makeRoomMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      first += (written - first) / 2;
    }

    @Override
    public void close() {
      closedLogs.incrementAndGet();
    }
  }
}
