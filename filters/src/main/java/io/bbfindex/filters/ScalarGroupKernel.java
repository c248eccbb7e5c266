package io.bbfindex.filters;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The reference kernel: one word at a time, in plain Java. It is also the fallback when the {@code
 * jdk.incubator.vector} module is absent. Queries stop at the first clear bit, which is what makes
 * negative lookups cheap here (most words of a sparse group miss).
 *
 * <p>Java's shift operators use only the low 5 (int) or 6 (long) bits of the shift count, so {@code
 * 1 << (int) (lane >>> 8 * i)} is exactly "bit {@code P[i] & (lw - 1)}" of the layout.
 */
final class ScalarGroupKernel implements GroupKernel {

  static final ValueLayout.OfLong LE_LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  static final ValueLayout.OfInt LE_INT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private final int k;
  private final boolean wide;

  ScalarGroupKernel(BbfGeometry geometry) {
    this.k = geometry.k();
    this.wide = geometry.wordBits() == 64;
  }

  @Override
  public void insert(MemorySegment bits, long groupOffset, long lane0, long lane1) {
    if (wide) {
      for (int i = 0; i < k; i++) {
        long at = groupOffset + 8L * i;
        bits.set(LE_LONG, at, bits.get(LE_LONG, at) | (1L << (lane0 >>> (i << 3))));
      }
    } else {
      for (int i = 0; i < k; i++) {
        long source = i < 8 ? lane0 : lane1;
        long at = groupOffset + 4L * i;
        bits.set(LE_INT, at, bits.get(LE_INT, at) | (1 << (int) (source >>> ((i & 7) << 3))));
      }
    }
  }

  @Override
  public boolean test(MemorySegment bits, long groupOffset, long lane0, long lane1) {
    if (wide) {
      for (int i = 0; i < k; i++) {
        long mask = 1L << (lane0 >>> (i << 3));
        if ((bits.get(LE_LONG, groupOffset + 8L * i) & mask) == 0) {
          return false;
        }
      }
    } else {
      for (int i = 0; i < k; i++) {
        long source = i < 8 ? lane0 : lane1;
        int mask = 1 << (int) (source >>> ((i & 7) << 3));
        if ((bits.get(LE_INT, groupOffset + 4L * i) & mask) == 0) {
          return false;
        }
      }
    }
    return true;
  }

  @Override
  public BlockedBloomFilter.Kernel kind() {
    return BlockedBloomFilter.Kernel.SCALAR;
  }
}
