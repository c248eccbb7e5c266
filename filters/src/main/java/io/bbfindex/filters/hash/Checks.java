package io.bbfindex.filters.hash;

import static io.bbfindex.filters.Arguments.requireArgument;

/**
 * Sizing checks and the hash-to-range reduction the hashed structures (the peers and the cuckoo
 * filter) share; they fail through {@link io.bbfindex.filters.Arguments#requireArgument}.
 */
public final class Checks {

  private Checks() {}

  /** {@code ceil(bits / 64)} as an array length, refusing sizes a {@code long[]} cannot hold. */
  public static int longsForBits(long bits, String what) {
    long longs = (bits + 63) >>> 6;
    requireArgument(
        bits > 0 && longs <= Integer.MAX_VALUE - 8,
        what + " must be in [1, " + (Integer.MAX_VALUE - 8L) * 64 + "]",
        bits);
    return (int) longs;
  }

  /** {@code round(expectedKeys * bitsPerKey)}, checked. */
  public static long totalBits(long expectedKeys, double bitsPerKey) {
    requireArgument(expectedKeys > 0, "expectedKeys must be positive", expectedKeys);
    requireArgument(
        bitsPerKey > 0 && Double.isFinite(bitsPerKey), "bitsPerKey must be positive", bitsPerKey);
    return Math.max(1, Math.round(expectedKeys * bitsPerKey));
  }

  /** Uniform map of a 64-bit hash onto {@code [0, range)} by its high bits (Lemire's fastrange). */
  public static long reduce(long hash, long range) {
    return Math.unsignedMultiplyHigh(hash, range);
  }
}
