package io.bbfindex.filters.peers;

import static io.bbfindex.filters.Arguments.requireArgument;

import io.bbfindex.filters.MembershipFilter;
import io.bbfindex.filters.hash.Checks;
import io.bbfindex.filters.hash.Murmur3;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * The one-memory-access Bloom filter (OMBF; Qiao, Li, Chen, "One Memory Access Bloom Filters and
 * Their Generalization", INFOCOM 2011), the second baseline of the BBF paper: all {@code k} bits of
 * a key lie in one 512-bit block, the size of a cache line, so a lookup misses the cache at most
 * once.
 *
 * <p><b>Layout.</b> {@code r} blocks of 512 bits = 64 bytes = eight {@code long}s, in off-heap
 * memory aligned to 64 bytes, so a block is exactly one cache line (a {@code long[]} on the heap is
 * only 8-byte aligned and would straddle two lines). Bit {@code p} of block {@code b} is bit {@code
 * p & 63} of the little-endian long at byte {@code 64 b + 8 (p >>> 6)}.
 *
 * <p><b>Hashing: one hash, its bits cut into fields.</b> Murmur3 x64_128 of the key (seed {@code
 * seed}) gives two lanes. Lane {@code h1} picks the block, {@code (h1 * r) >>> 64}. Lane {@code h2}
 * supplies seven 9-bit fields, {@code (h2 >>> 9i) & 511} for {@code i = 0..6}, each a bit position
 * in the block. The OMBF paper takes all positions from the bits of one hash value long enough for
 * them; 128 bits cover {@code k <= 7}. For larger {@code k} the bit stream continues with a second
 * evaluation (seed {@code seed + 1}), seven more fields from each of its lanes, so {@code k <= 21}.
 * Positions are drawn with replacement (two fields may name the same bit), as the model assumes.
 *
 * <p><b>Model</b> ({@link FprModels#blockedBloom}): with {@code n} keys the load {@code Z} of the
 * queried block is Binomial(n, 1/r); a query passes when its {@code k} positions are all set after
 * {@code kZ} draws into the 512 bits:
 *
 * <pre>
 *   FPR = sum_z C(n,z) r^-z (1 - 1/r)^(n-z) * P512(k, kz)
 *   P512(k, t) = sum_{j=1..k} S2(k,j) (512)_j / 512^k * sum_{i=0..j} (-1)^i C(j,i) (1 - i/512)^t
 *             ~ (1 - (1 - 1/512)^t)^k    (the textbook term: 0.2-2 % low at 4-16 bits/key)
 * </pre>
 *
 * <p>Not thread-safe for concurrent {@link #add}; concurrent {@link #mightContain} calls are fine.
 * The memory is freed by the garbage collector once the filter is unreachable.
 */
public final class OneMemoryAccessBloomFilter implements MembershipFilter {

  /** Bits in a block: one 64-byte cache line. */
  public static final int BLOCK_BITS = 512;

  /** Most bit positions a key may set: seven 9-bit fields in each of three 64-bit lanes. */
  public static final int MAX_K = 21;

  private static final int BLOCK_BYTES = BLOCK_BITS / 8;
  private static final int FIELDS_PER_LANE = 7;
  private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG;

  private final MemorySegment table;
  private final long blocks;
  private final int k;
  private final int seed;
  private long count;

  /**
   * @param blocks number of 512-bit blocks {@code r}, at least 1
   * @param k bit positions a key, 1 to {@value #MAX_K}
   * @param seed Murmur3 seed
   * @throws IllegalArgumentException if {@code blocks} or {@code k} is out of range
   */
  public OneMemoryAccessBloomFilter(long blocks, int k, int seed) {
    requireArgument(
        blocks >= 1 && blocks <= Long.MAX_VALUE / BLOCK_BYTES, "blocks must be positive", blocks);
    requireArgument(k >= 1 && k <= MAX_K, "k must be in [1, " + MAX_K + "]", k);
    this.table = Arena.ofAuto().allocate(blocks * BLOCK_BYTES, BLOCK_BYTES);
    this.blocks = blocks;
    this.k = k;
    this.seed = seed;
  }

  /**
   * A filter of {@code max(1, round(expectedKeys * bitsPerKey / 512))} blocks with the {@code k}
   * that minimises the model at {@code expectedKeys}.
   */
  public static OneMemoryAccessBloomFilter forKeys(long expectedKeys, double bitsPerKey) {
    long blocks = Math.max(1, Math.round(Checks.totalBits(expectedKeys, bitsPerKey) / 512.0));
    return new OneMemoryAccessBloomFilter(blocks, optimalK(expectedKeys, blocks), 0);
  }

  /**
   * The {@code k} in {@code [1, MAX_K]} that minimises the blocked model for n keys in r blocks.
   */
  public static int optimalK(long n, long blocks) {
    return FprModels.bestK(MAX_K, k -> FprModels.blockedBloom(n, blocks, BLOCK_BITS, k));
  }

  @Override
  public boolean add(byte[] keys, int offset) {
    walk(keys, offset, true);
    count++;
    return true;
  }

  @Override
  public boolean mightContain(byte[] keys, int offset) {
    return walk(keys, offset, false);
  }

  /**
   * Visits the key's {@code k} positions in its block, setting them ({@code insert}) or testing
   * them (returning {@code false} at the first clear one). One loop for both, so the bits a lookup
   * tests are by construction the bits an insert set; each caller passes a constant, which the JIT
   * folds after inlining.
   */
  private boolean walk(byte[] keys, int offset, boolean insert) {
    Objects.checkFromIndexSize(offset, KEY_BYTES, keys.length);
    Murmur3.Hash128 h = Murmur3.hashKey(keys, offset, seed);
    long base = Checks.reduce(h.h1(), blocks) * BLOCK_BYTES;
    long lane = h.h2();
    for (int i = 0; i < k; i++) {
      if (i == FIELDS_PER_LANE) {
        h = Murmur3.hashKey(keys, offset, seed + 1);
        lane = h.h1();
      } else if (i == 2 * FIELDS_PER_LANE) {
        lane = h.h2();
      }
      int p = (int) (lane >>> (9 * (i % FIELDS_PER_LANE))) & (BLOCK_BITS - 1);
      long at = base + ((p >>> 6) << 3);
      long word = table.get(WORD, at);
      if (insert) {
        table.set(WORD, at, word | (1L << p));
      } else if ((word & (1L << p)) == 0) {
        return false;
      }
    }
    return true;
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public long bitSize() {
    return blocks * BLOCK_BITS;
  }

  public long blocks() {
    return blocks;
  }

  public int k() {
    return k;
  }

  /** Share of all bits that are set. */
  public double fillRatio() {
    long set = 0;
    for (long at = 0; at < table.byteSize(); at += 8) {
      set += Long.bitCount(table.get(WORD, at));
    }
    return (double) set / bitSize();
  }

  /** The eight words of block {@code block}, for tests of the layout. */
  long[] copyOfBlock(long block) {
    long[] words = new long[BLOCK_BITS / 64];
    for (int w = 0; w < words.length; w++) {
      words[w] = table.get(WORD, block * BLOCK_BYTES + 8L * w);
    }
    return words;
  }

  @Override
  public double modelledFpr() {
    return FprModels.blockedBloom(count, blocks, BLOCK_BITS, k);
  }

  @Override
  public String toString() {
    return "OneMemoryAccessBloomFilter[blocks=" + blocks + ", k=" + k + ", n=" + count + "]";
  }
}
