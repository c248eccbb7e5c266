package io.bbfindex.filters;

import java.util.Objects;

/**
 * An approximate-membership filter over 32-byte keys (SHA-256d hashes in Bitcoin's internal byte
 * order). A filter never forgets a key it accepted: {@link #mightContain} is {@code true} for every
 * key {@link #add} returned {@code true} for (unless it was {@link #remove removed}); for any other
 * key it is {@code true} with roughly {@link #modelledFpr()}.
 *
 * <p>Keys are passed as a byte array and an offset, so a batch of keys can be one flat array of
 * {@code 32 * n} bytes without an object per key.
 */
public interface MembershipFilter {

  /** Bytes in every key. */
  int KEY_BYTES = 32;

  /**
   * Inserts the key at {@code keys[offset .. offset + 32)}.
   *
   * @return {@code false} only when the structure is full and refused the key (cuckoo variants);
   *     the filter is then unchanged
   */
  boolean add(byte[] keys, int offset);

  /** {@code false} means the key was certainly never added; {@code true} means "maybe". */
  boolean mightContain(byte[] keys, int offset);

  /**
   * Probes {@code count} consecutive keys of {@code keys} (32 bytes each, from offset 0) and writes
   * one verdict per key into {@code out}. Implementations may overlap the keys' memory accesses.
   *
   * @throws IndexOutOfBoundsException if {@code count < 0}, {@code keys} holds fewer than {@code 32
   *     * count} bytes or {@code out} fewer than {@code count} entries; nothing is written then
   */
  default void mightContainBatch(byte[] keys, int count, boolean[] out) {
    Objects.checkFromIndexSize(0, count, keys.length / KEY_BYTES);
    Objects.checkFromIndexSize(0, count, out.length);
    for (int i = 0; i < count; i++) {
      out[i] = mightContain(keys, i * KEY_BYTES);
    }
  }

  /**
   * Probes {@code count} consecutive keys of {@code keys} (32 bytes each, from offset 0) and writes
   * the verdicts as a bitmap: bit {@code i % 64} of {@code maybe[i / 64]} is key i's answer. The
   * bits of the last word from {@code count} on are 0; words from {@link #bitmapWords
   * bitmapWords(count)} on are not touched. One store per 64 keys instead of one per key, and a
   * caller visits only the maybes ({@link Long#numberOfTrailingZeros}), skipping 64 certain
   * negatives at a time.
   *
   * @return how many keys may be present (the bits set)
   * @throws IndexOutOfBoundsException if {@code count < 0}, {@code keys} holds fewer than {@code 32
   *     * count} bytes or {@code maybe} fewer than {@code bitmapWords(count)} words; nothing is
   *     written then
   */
  default int mightContainBatch(byte[] keys, int count, long[] maybe) {
    checkBitmapBatch(keys, count, maybe);
    int hits = 0;
    for (int word = 0, words = bitmapWords(count); word < words; word++) {
      int first = word << 6;
      int bitsHere = Math.min(64, count - first);
      long bits = 0;
      for (int bit = 0; bit < bitsHere; bit++) {
        bits |= (mightContain(keys, (first + bit) * KEY_BYTES) ? 1L : 0L) << bit;
      }
      maybe[word] = bits;
      hits += Long.bitCount(bits);
    }
    return hits;
  }

  /** Words of a bitmap holding {@code count} verdicts: {@code ceil(count / 64)}. */
  static int bitmapWords(int count) {
    return (int) ((count + 63L) >>> 6);
  }

  /** The checks of {@link #mightContainBatch(byte[], int, long[])}, before anything is written. */
  static void checkBitmapBatch(byte[] keys, int count, long[] maybe) {
    Objects.checkFromIndexSize(0, count, keys.length / KEY_BYTES);
    Objects.checkFromIndexSize(0, bitmapWords(count), maybe.length);
  }

  /** Keys added so far (less the removed ones, where removal is supported). */
  long count();

  /** Size of the structure's table in bits. */
  long bitSize();

  /** The false-positive probability the structure's model predicts at its present load. */
  double modelledFpr();

  /** Whether {@link #remove} is supported. */
  default boolean supportsRemove() {
    return false;
  }

  /**
   * Removes one previously added key.
   *
   * @return whether a matching entry was found and removed
   * @throws UnsupportedOperationException if {@link #supportsRemove()} is {@code false}
   */
  default boolean remove(byte[] keys, int offset) {
    throw new UnsupportedOperationException(
        getClass().getSimpleName() + " does not support remove");
  }
}
