package io.bbfindex.filters.catalog;

import io.bbfindex.filters.BbfGeometry;
import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.filters.MembershipFilter;
import io.bbfindex.filters.cuckoo.CuckooFilter;
import io.bbfindex.filters.peers.OneMemoryAccessBloomFilter;
import io.bbfindex.filters.peers.StandardBloomFilter;
import io.bbfindex.filters.peers.TwoBitBloomFilter;

/**
 * Every {@link MembershipFilter} implementation, each with a factory sized by keys and bits per
 * key, so unit tests, FPR tables and JMH {@code @Param}s can iterate over all of them alike.
 *
 * <p>Sizes are rounded to what each structure can have (whole 512-bit blocks, whole 32-bit words,
 * power-of-two cuckoo tables), so {@link MembershipFilter#bitSize()} is the truth about space, not
 * {@code expectedKeys * bitsPerKey}.
 */
public enum FilterType {

  // ---- The SIMD blockchain Bloom filter (BlockedBloomFilter): BBF_SIMD, BBF_SCALAR.
  // ---- They come first so tables list the BBF before its peers.

  /**
   * The BBF with the Vector API kernel when this JVM can run it, else the scalar fallback (as the
   * product does; {@link BlockedBloomFilter#bestKernel()}). Shape: see {@link #bbfGeometry}.
   */
  BBF_SIMD {
    @Override
    public MembershipFilter create(long expectedKeys, double bitsPerKey) {
      return create(expectedKeys, bitsPerKey, bbfDefaultK(bitsPerKey));
    }

    @Override
    public MembershipFilter create(long expectedKeys, double bitsPerKey, int k) {
      return BlockedBloomFilter.create(
          bbfGeometry(expectedKeys, bitsPerKey, k), 0, BlockedBloomFilter.bestKernel());
    }
  },

  /** The BBF with the plain-Java kernel: same bits and answers as {@link #BBF_SIMD}. */
  BBF_SCALAR {
    @Override
    public MembershipFilter create(long expectedKeys, double bitsPerKey) {
      return create(expectedKeys, bitsPerKey, bbfDefaultK(bitsPerKey));
    }

    @Override
    public MembershipFilter create(long expectedKeys, double bitsPerKey, int k) {
      return BlockedBloomFilter.create(
          bbfGeometry(expectedKeys, bitsPerKey, k), 0, BlockedBloomFilter.Kernel.SCALAR);
    }
  },

  // ---- The peers of the BBF paper and of the seed documents (package io.bbfindex.filters.peers).

  /** Standard Bloom filter, {@code k} independent seeded Murmur3 hashes (the paper's "BF"). */
  BLOOM {
    @Override
    public MembershipFilter create(long expectedKeys, double bitsPerKey) {
      return StandardBloomFilter.forKeys(expectedKeys, bitsPerKey);
    }

    @Override
    public MembershipFilter create(long expectedKeys, double bitsPerKey, int k) {
      return new StandardBloomFilter(bits(expectedKeys, bitsPerKey), k, 0);
    }
  },

  /**
   * One-memory-access Bloom filter: all {@code k} bits in one 512-bit block (the paper's "OMBF").
   */
  OMBF {
    @Override
    public MembershipFilter create(long expectedKeys, double bitsPerKey) {
      return OneMemoryAccessBloomFilter.forKeys(expectedKeys, bitsPerKey);
    }

    @Override
    public MembershipFilter create(long expectedKeys, double bitsPerKey, int k) {
      long blocks = Math.max(1, Math.round(bits(expectedKeys, bitsPerKey) / 512.0));
      return new OneMemoryAccessBloomFilter(blocks, k, 0);
    }
  },

  /** Floe's two-bit Bloom filter: each of {@code k} probes sets two bits of one 32-bit word. */
  TWO_BIT {
    @Override
    public MembershipFilter create(long expectedKeys, double bitsPerKey) {
      return TwoBitBloomFilter.forKeys(expectedKeys, bitsPerKey);
    }

    @Override
    public MembershipFilter create(long expectedKeys, double bitsPerKey, int k) {
      long words = Math.ceilDiv(bits(expectedKeys, bitsPerKey), 32);
      if (words > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException(
            "expectedKeys * bitsPerKey / 32 must fit an int[]: " + words);
      }
      return new TwoBitBloomFilter((int) words, k, 0);
    }
  },

  /**
   * Cuckoo filter with 4-slot buckets; supports {@link MembershipFilter#remove}. The bucket count
   * is the power of two that holds {@code expectedKeys} at load at most 95 %, and the fingerprint
   * width is {@code round(expectedKeys * bitsPerKey / (4 * buckets))} clamped to [4, 32] bits, so
   * the table spends about {@code bitsPerKey} bits a key (more when the clamp bites). There is no
   * {@code k}: the fingerprint width takes its place.
   */
  CUCKOO {
    @Override
    public MembershipFilter create(long expectedKeys, double bitsPerKey) {
      int buckets = CuckooFilter.bucketsFor(expectedKeys);
      long slots = (long) buckets * CuckooFilter.SLOTS_PER_BUCKET;
      long f = Math.round(bits(expectedKeys, bitsPerKey) / (double) slots);
      return new CuckooFilter(buckets, Math.clamp(f, 4, 32));
    }

    @Override
    public boolean supportsK() {
      return false;
    }
  };

  /**
   * A filter for {@code expectedKeys} keys at about {@code bitsPerKey} bits a key, with the
   * structure's best parameters for that load.
   *
   * @throws IllegalArgumentException if {@code expectedKeys} or {@code bitsPerKey} is not positive
   *     or the size is beyond the structure's limit
   */
  public abstract MembershipFilter create(long expectedKeys, double bitsPerKey);

  /**
   * As {@link #create(long, double)} with {@code k} fixed: hash functions (BLOOM), bits a key in
   * its block (OMBF), two-bit probes (TWO_BIT).
   *
   * @throws UnsupportedOperationException if {@link #supportsK()} is {@code false}
   * @throws IllegalArgumentException if {@code k} is out of the structure's range
   */
  public MembershipFilter create(long expectedKeys, double bitsPerKey, int k) {
    throw new UnsupportedOperationException(name() + " has no k parameter");
  }

  /** Whether {@link #create(long, double, int)} is available. */
  public boolean supportsK() {
    return true;
  }

  /**
   * The BBF shape for {@code expectedKeys} keys at about {@code bitsPerKey} bits a key with {@code
   * k} words a group: lw = 64 (lw = 32 for k = 16, the only way to have 16 words in a cache line),
   * and r the power of two nearest {@code expectedKeys * bitsPerKey / (k * lw)} in log scale, so
   * the real bits a key are within a factor sqrt(2) of the request.
   *
   * @throws IllegalArgumentException if k is not 2, 4, 8 or 16, or the size is out of range
   */
  public static BbfGeometry bbfGeometry(long expectedKeys, double bitsPerKey, int k) {
    return bbfGeometry(expectedKeys, bitsPerKey, k, k == 16 ? 32 : 64);
  }

  /**
   * As {@link #bbfGeometry(long, double, int)} with the word width chosen by the caller.
   *
   * @throws IllegalArgumentException if (k, wordBits) is not a BBF shape or the size is out of
   *     range
   */
  public static BbfGeometry bbfGeometry(long expectedKeys, double bitsPerKey, int k, int wordBits) {
    BbfGeometry.checkShape(k, wordBits);
    double groups = bits(expectedKeys, bitsPerKey) / (double) (k * wordBits);
    long log2 = Math.max(0, Math.round(Math.log(groups) / Math.log(2)));
    if (log2 > 32) {
      throw new IllegalArgumentException(
          "expectedKeys * bitsPerKey needs more than 2^32 groups: "
              + expectedKeys
              + " * "
              + bitsPerKey);
    }
    return new BbfGeometry(1L << log2, k, wordBits);
  }

  /**
   * The BBF's default k: of 2, 4, 8 and 16 the one nearest (in log scale) to the standard Bloom
   * filter's best k = bitsPerKey * ln 2.
   */
  public static int bbfDefaultK(double bitsPerKey) {
    if (!(bitsPerKey > 0) || !Double.isFinite(bitsPerKey)) {
      throw new IllegalArgumentException("bitsPerKey must be positive: " + bitsPerKey);
    }
    double ideal = Math.log(bitsPerKey * Math.log(2)) / Math.log(2);
    return 1 << Math.clamp(Math.round(ideal), 1, 4);
  }

  private static long bits(long expectedKeys, double bitsPerKey) {
    if (expectedKeys <= 0) {
      throw new IllegalArgumentException("expectedKeys must be positive: " + expectedKeys);
    }
    if (!(bitsPerKey > 0) || !Double.isFinite(bitsPerKey)) {
      throw new IllegalArgumentException("bitsPerKey must be positive: " + bitsPerKey);
    }
    return Math.max(1, Math.round(expectedKeys * bitsPerKey));
  }
}
