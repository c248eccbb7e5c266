package io.bbfindex.app.lookup;

import io.bbfindex.ingest.encoding.HashKeys;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The order in which a batch's "maybe" keys are read from the index: ascending by their first
 * {@value #PREFIX_BITS} bits, ties in request order. Each entry packs the key's prefix above its
 * request index into one {@code long}, so a plain primitive sort orders them (no boxing, no
 * comparator); the prefix is enough for locality, the exact order of keys sharing it does not
 * matter.
 */
final class MaybeOrder {
  /** Bits of the request index (batches are far smaller than 2^24 keys). */
  static final int INDEX_BITS = 24;

  /** Bits of the key prefix: the rest of a long, less the sign bit (the sort is signed). */
  static final int PREFIX_BITS = Long.SIZE - 1 - INDEX_BITS;

  /** Largest batch whose indexes fit. */
  static final int MAX_KEYS = 1 << INDEX_BITS;

  private static final VarHandle BIG_ENDIAN =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private MaybeOrder() {}

  /**
   * The set bits of {@code maybe} (bit {@code i % 64} of word {@code i / 64} = key {@code i}), as
   * sorted entries; {@link #index} gives each one's request index back.
   */
  static long[] ascendingKeys(byte[] keys, long[] maybe) {
    int n = 0;
    for (long word : maybe) {
      n += Long.bitCount(word);
    }
    long[] order = new long[n];
    int k = 0;
    for (int word = 0; word < maybe.length; word++) {
      for (long bits = maybe[word]; bits != 0; bits &= bits - 1) {
        int i = (word << 6) + Long.numberOfTrailingZeros(bits);
        order[k++] = prefix(keys, i * HashKeys.KEY_BYTES) << INDEX_BITS | i;
      }
    }
    Arrays.sort(order);
    return order;
  }

  /** The request index of an entry of {@link #ascendingKeys}. */
  static int index(long entry) {
    return (int) (entry & ((1L << INDEX_BITS) - 1));
  }

  /**
   * The key's first {@value #PREFIX_BITS} bits, unsigned, as LevelDB's bytewise order sees them.
   */
  private static long prefix(byte[] keys, int offset) {
    return (long) BIG_ENDIAN.get(keys, offset) >>> (Long.SIZE - PREFIX_BITS);
  }
}
