package io.bbfindex.filters;

import java.lang.foreign.MemorySegment;

/**
 * Sets or tests one key's k bits inside one group. Implementations differ only in instructions:
 * for the same (segment, group offset, lanes) they set and test exactly the same bits, which the
 * property tests check bit for bit. The lanes come from {@link BitDerivation}; see the layout in
 * {@link BlockedBloomFilter}.
 */
interface GroupKernel {

  /** Sets bit {@code P[i] & (lw - 1)} of word i of the group at byte {@code groupOffset}. */
  void insert(MemorySegment bits, long groupOffset, long lane0, long lane1);

  /** Whether every bit {@link #insert} would set is set. */
  boolean test(MemorySegment bits, long groupOffset, long lane0, long lane1);

  /** Which kernel this is. */
  BlockedBloomFilter.Kernel kind();
}
