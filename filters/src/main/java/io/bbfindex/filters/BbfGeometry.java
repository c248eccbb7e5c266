package io.bbfindex.filters;

import static io.bbfindex.filters.Arguments.requireArgument;

/**
 * The shape of a blocked Bloom filter (BBF): {@code groups} groups (r), each of {@code k} words of
 * {@code wordBits} bits (lw), and how a key's group bits are reduced to a group index ({@link
 * Indexing}). One key sets exactly one bit in every word of one group, so a group is the unit of
 * memory access.
 *
 * <p>A group is at most 64 bytes (one cache line on x86-64 and most ARM cores) and its size divides
 * 64, so with the bit array aligned to 64 bytes no group straddles two cache lines and a lookup
 * costs one cache miss at most. Hence the allowed shapes: lw = 32 with k in {2, 4, 8, 16} and lw =
 * 64 with k in {2, 4, 8}.
 *
 * @param groups number of groups r in [1, {@link #MAX_GROUPS}]; a power of two for {@link
 *     Indexing#MASK}
 * @param k words per group, i.e. bits set per key
 * @param wordBits bits per word (lw), 32 or 64
 * @param indexing how the group index is taken from the key's group bits
 */
public record BbfGeometry(long groups, int k, int wordBits, Indexing indexing) {

  /**
   * How the 32 group bits of a key (bits 0..31 of lane L2, see {@link BlockedBloomFilter}) become a
   * group index in [0, r). Stored in filter files as the format version (filters/FORMAT.md).
   */
  public enum Indexing {
    /**
     * Format version 1: {@code L2 AND (r - 1)}. Only for a power-of-two r, so a filter's size can
     * only double: up to 2x the bits its target needs.
     */
    MASK,
    /**
     * Format version 2: {@code ((L2 AND 0xFFFFFFFF) * r) >>> 32} (Lemire's multiply-shift
     * reduction), for any r in [1, 2^32]: the 32 group bits read as a fraction in [0, 1), scaled by
     * r. Uniform group bits give every group the same share of keys to within 1 in 2^32 / r, so eq.
     * 3 holds for every r, and sizing can stop at the smallest r meeting a target.
     */
    MULTIPLY_SHIFT
  }

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
    java.util.Objects.requireNonNull(indexing, "indexing");
    requireArgument(groups >= 1 && groups <= MAX_GROUPS, "groups (r) must be in [1, 2^32]", groups);
    requireArgument(
        indexing != Indexing.MASK || Long.bitCount(groups) == 1,
        "groups (r) must be a power of two with MASK indexing (format version 1)",
        groups);
    checkShape(k, wordBits);
  }

  /**
   * A geometry with the current {@link Indexing#MULTIPLY_SHIFT} indexing (format version 2): any r.
   *
   * @throws IllegalArgumentException naming the bad field and its value
   */
  public BbfGeometry(long groups, int k, int wordBits) {
    this(groups, k, wordBits, Indexing.MULTIPLY_SHIFT);
  }

  /**
   * A format version 1 geometry ({@link Indexing#MASK}): r a power of two. For reading and
   * reproducing version 1 files; new filters use {@link #BbfGeometry(long, int, int)}.
   */
  public static BbfGeometry v1(long groups, int k, int wordBits) {
    return new BbfGeometry(groups, k, wordBits, Indexing.MASK);
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
        + (indexing == Indexing.MASK ? ", v1 mask" : "")
        + "]";
  }
}
