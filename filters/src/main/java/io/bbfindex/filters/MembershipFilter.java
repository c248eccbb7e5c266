package io.bbfindex.filters;

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
   */
  default void mightContainBatch(byte[] keys, int count, boolean[] out) {
    for (int i = 0; i < count; i++) {
      out[i] = mightContain(keys, i * KEY_BYTES);
    }
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
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not support remove");
  }
}
