package io.flexlog.client.internals;

/**
 * The hash that maps an append's key to a shard: 32-bit FNV-1a over the key's bytes, then {@code
 * floorMod(hash, shardCount)} over the color's shards sorted by id. Fixed here so that every client
 * (and every version) sends a key to the same shard.
 */
public final class KeyHash {
  private static final int OFFSET_BASIS = 0x811C9DC5;
  private static final int PRIME = 0x01000193;

  private KeyHash() {}

  public static int of(byte[] key) {
    int hash = OFFSET_BASIS;
    for (byte b : key) {
      hash ^= b & 0xFF;
      hash *= PRIME;
    }
    return hash;
  }
}
