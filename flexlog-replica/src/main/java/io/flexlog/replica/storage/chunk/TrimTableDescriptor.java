package io.flexlog.replica.storage.chunk;

/**
 * Layout of the trim table: the durable trim point of every trimmed color
 * (docs/architecture.md#trim). It lives in the llpl heap's root block ({@link
 * ChunkTableDescriptor}) or, on the mapped engine, in the file {@code trim-points.tbl}.
 * Little-endian.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                magic "FLXLTRIM" (8 ASCII bytes)               |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                         version (int32)                       |
 *  +---------------------------------------------------------------+
 *  |                 slots in use (int32, the commit word)         |
 *  +---------------------------------------------------------------+
 *  |                     reserved, zero (48 bytes)                 |
 *  +---------------------------------------------------------------+  64
 *  |  slot 0: color id (int32) | reserved (int32) | trim SN (int64) |
 *  +---------------------------------------------------------------+  80
 *  |  slot 1 ...                                                    |
 * </pre>
 *
 * <p>Crash atomicity: a new color's slot is written and flushed before the slot count that covers
 * it is written and flushed (one aligned 4-byte store), so a torn slot is never in use. Raising an
 * existing color's trim point is one aligned 8-byte store of its SN, flushed.
 */
public final class TrimTableDescriptor {
  public static final int MAGIC_OFFSET = 0;
  public static final int VERSION_OFFSET = 8;
  public static final int SLOTS_USED_OFFSET = 12;
  public static final int SLOTS_OFFSET = 64;
  public static final int SLOT_LENGTH = 16;
  public static final int SLOT_COLOR_OFFSET = 0;
  public static final int SLOT_SN_OFFSET = 8;

  /** Colors a table can hold; the table is 64 KiB. */
  public static final int MAX_SLOTS = 4092;

  public static final int LENGTH = SLOTS_OFFSET + MAX_SLOTS * SLOT_LENGTH;

  public static final long MAGIC = ChunkHeaderDescriptor.magic("FLXLTRIM");
  public static final int VERSION = 1;

  private TrimTableDescriptor() {}

  public static int slotOffset(int slot) {
    return SLOTS_OFFSET + slot * SLOT_LENGTH;
  }
}
