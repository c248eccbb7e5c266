package io.bbfindex.filters;

import java.lang.foreign.MemorySegment;

/**
 * Sets or tests one key's k bits inside one group. Implementations differ only in instructions: for
 * the same (segment, group offset, lanes) they set and test exactly the same bits, which the
 * property tests check bit for bit. The lanes come from {@link BitDerivation}; see the layout in
 * {@link BlockedBloomFilter}.
 *
 * <p>Two entry points per operation: with the lanes (any derivation), and with the key itself for
 * the unsalted derivation, where position byte P[i] is key byte i (L0 = bytes 0..7, L1 = bytes
 * 8..15, little-endian). The second lets the vector kernel load the position bytes straight from
 * the key into vector lanes (one sign-extending load) instead of broadcasting a long and shifting.
 */
interface GroupKernel {

  /** Sets bit {@code P[i] & (lw - 1)} of word i of the group at byte {@code groupOffset}. */
  void insert(MemorySegment bits, long groupOffset, long lane0, long lane1);

  /** Whether every bit {@link #insert} would set is set. */
  boolean test(MemorySegment bits, long groupOffset, long lane0, long lane1);

  /**
   * {@link #insert} for the unsalted derivation: the lanes are the raw key bytes at {@code offset}
   * (the caller has checked that 32 bytes are there).
   */
  default void insertKey(MemorySegment bits, long groupOffset, byte[] keys, int offset) {
    insert(
        bits,
        groupOffset,
        BitDerivation.rawLane(keys, offset),
        BitDerivation.rawLane(keys, offset + 8));
  }

  /** {@link #test} for the unsalted derivation, as {@link #insertKey}. */
  default boolean testKey(MemorySegment bits, long groupOffset, byte[] keys, int offset) {
    return test(
        bits,
        groupOffset,
        BitDerivation.rawLane(keys, offset),
        BitDerivation.rawLane(keys, offset + 8));
  }

  /** Which kernel this is. */
  BlockedBloomFilter.Kernel kind();
}
