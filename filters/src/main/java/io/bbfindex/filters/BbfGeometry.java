package io.bbfindex.filters;

import static io.bbfindex.filters.Arguments.requireArgument;

/**
 * The shape of a blocked Bloom filter (BBF): {@code groups} groups (r, a power of two), each of
 * {@code k} words of {@code wordBits} bits (lw). One key sets exactly one bit in every word of one
 * group, so a group is the unit of memory access.
 *
 * <p>A group is at most 64 bytes (one cache line on x86-64 and most ARM cores) and its size divides
 * 64, so with the bit array aligned to 64 bytes no group straddles two cache lines and a lookup
 * costs one cache miss at most. Hence the allowed shapes: lw = 32 with k in {2, 4, 8, 16} and lw =
 * 64 with k in {2, 4, 8}.
 *
 * @param groups number of groups r; a power of two in [1, {@link #MAX_GROUPS}]
 * @param k words per group, i.e. bits set per key
 * @param wordBits bits per word (lw), 32 or 64
 */
public record BbfGeometry(long groups, int k, int wordBits) {

  /**
   * Largest number of groups: 2^32 (256 GiB at 64-byte groups). The bit derivation takes the group
   * index from bits 0..31 of key lane 2, so more groups would need more key bits.
   */
  public static final long MAX_GROUPS = 1L << 32;

  /** Cache-line size the layout is built around. */
  public static final int CACHE_LINE_BYTES = 64;

  /**
   * Validates the geometry.
   *
   * @throws IllegalArgumentException naming the bad field and its value
   */
  public BbfGeometry {
    requireArgument(
        groups >= 1 && groups <= MAX_GROUPS && Long.bitCount(groups) == 1,
        "groups (r) must be a power of two in [1, 2^32]",
        groups);
    checkShape(k, wordBits);
  }

  /**
   * Checks that {@code k} words of {@code wordBits} bits make a valid group.
   *
   * @throws IllegalArgumentException e.g. {@code "k must be one of 2, 4, 8, 16 for lw = 32: 3"}
   */
  public static void checkShape(int k, int wordBits) {
    switch (wordBits) {
      case 32 -> {
        requireArgument(
            k == 2 || k == 4 || k == 8 || k == 16, "k must be one of 2, 4, 8, 16 for lw = 32", k);
      }
      case 64 -> {
        requireArgument(k == 2 || k == 4 || k == 8, "k must be one of 2, 4, 8 for lw = 64", k);
      }
      default -> throw new IllegalArgumentException("wordBits (lw) must be 32 or 64: " + wordBits);
    }
  }

  /** Whether {@code k} words of {@code wordBits} bits make a valid group. */
  public static boolean isValidShape(int k, int wordBits) {
    return (wordBits == 32 && (k == 2 || k == 4 || k == 8 || k == 16))
        || (wordBits == 64 && (k == 2 || k == 4 || k == 8));
  }

  /** Total bits m = r * k * lw. */
  public long bitSize() {
    return groups * groupBits();
  }

  /** Bytes of the bit array: r * k * lw / 8. */
  public long byteSize() {
    return groups * groupBytes();
  }

  /** Bits per group: k * lw (64 to 512). */
  public int groupBits() {
    return k * wordBits;
  }

  /** Bytes per group: k * lw / 8 (8 to 64, always a divisor of 64). */
  public int groupBytes() {
    return k * wordBits / 8;
  }

  /** Bytes per word: 4 or 8. */
  public int wordBytes() {
    return wordBits / 8;
  }

  @Override
  public String toString() {
    return "BbfGeometry[r="
        + groups
        + ", k="
        + k
        + ", lw="
        + wordBits
        + ", bits="
        + bitSize()
        + "]";
  }
}
