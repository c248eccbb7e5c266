package io.bbfindex.filters.peers;

import static io.bbfindex.filters.Arguments.requireArgument;

import io.bbfindex.filters.MembershipFilter;
import io.bbfindex.filters.hash.Checks;
import io.bbfindex.filters.hash.Murmur3;
import java.util.Objects;

/**
 * The standard Bloom filter (Bloom 1970), the "BF" baseline of the BBF paper: {@code m} bits and
 * {@code k} independent hash functions, bit {@code h_i(x) mod m} set for each.
 *
 * <p><b>Hashing, as the paper's baseline does it.</b> Hash function {@code i} (0-based) is
 * MurmurHash3 x64_128 of the 32-byte key with seed {@code seed + i}; its first 64-bit lane is
 * mapped onto {@code [0, m)} by {@code (h * m) >>> 64} (no modulo bias, any {@code m}). That is
 * {@code k} full Murmur3 evaluations per key: the cost the BBF paper's Table 1 charges to BF, and
 * the reason this class exists next to the BBF. Cheaper schemes (double hashing {@code h1 + i h2},
 * "less hashing") are deliberately not used here.
 *
 * <p><b>Memory.</b> A key touches up to {@code k} different cache lines of a {@code long[]}.
 *
 * <p><b>Model.</b> {@link FprModels#standardBloom}: {@code (1 - e^(-kn/m))^k}.
 *
 * <p>Not thread-safe for concurrent {@link #add}; concurrent {@link #mightContain} calls are fine.
 */
public final class StandardBloomFilter implements MembershipFilter {

  /** Most hash functions a filter may use. */
  public static final int MAX_K = 64;

  private final long[] bits;
  private final long bitCount;
  private final int k;
  private final int seed;
  private long count;

  /**
   * @param bitCount {@code m}, any positive size a {@code long[]} can hold
   * @param k hash functions, 1 to {@value #MAX_K}
   * @param seed seed of hash function 0 (function {@code i} uses {@code seed + i})
   * @throws IllegalArgumentException if {@code bitCount} or {@code k} is out of range
   */
  public StandardBloomFilter(long bitCount, int k, int seed) {
    requireArgument(k >= 1 && k <= MAX_K, "k must be in [1, " + MAX_K + "]", k);
    this.bits = new long[Checks.longsForBits(bitCount, "bitCount")];
    this.bitCount = bitCount;
    this.k = k;
    this.seed = seed;
  }

  /**
   * A filter of {@code round(expectedKeys * bitsPerKey)} bits with the {@code k} that minimises the
   * model at {@code expectedKeys} ({@code ~ bitsPerKey ln 2}).
   */
  public static StandardBloomFilter forKeys(long expectedKeys, double bitsPerKey) {
    long m = Checks.totalBits(expectedKeys, bitsPerKey);
    return new StandardBloomFilter(m, optimalK(expectedKeys, m), 0);
  }

  /** The {@code k} in {@code [1, MAX_K]} that minimises {@code (1 - e^(-kn/m))^k}. */
  public static int optimalK(long n, long mBits) {
    return FprModels.bestK(MAX_K, k -> FprModels.standardBloom(n, mBits, k));
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
   * Visits the key's {@code k} bits, setting them ({@code insert}) or testing them (returning
   * {@code false} at the first clear one: most negatives stop after one or two Murmur3
   * evaluations). Callers pass constants, folded by the JIT after inlining.
   */
  private boolean walk(byte[] keys, int offset, boolean insert) {
    Objects.checkFromIndexSize(offset, KEY_BYTES, keys.length);
    for (int i = 0; i < k; i++) {
      long bit = position(keys, offset, i);
      int word = (int) (bit >>> 6);
      if (insert) {
        bits[word] |= 1L << bit;
      } else if ((bits[word] & (1L << bit)) == 0) {
        return false;
      }
    }
    return true;
  }

  /** Bit of hash function {@code i}: its own seeded Murmur3 evaluation, reduced onto [0, m). */
  private long position(byte[] keys, int offset, int i) {
    return Checks.reduce(Murmur3.hashKey(keys, offset, seed + i).h1(), bitCount);
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public long bitSize() {
    return bitCount;
  }

  public int k() {
    return k;
  }

  /** Share of the {@code m} bits that are set. */
  public double fillRatio() {
    long set = 0;
    for (long word : bits) {
      set += Long.bitCount(word);
    }
    return (double) set / bitCount;
  }

  @Override
  public double modelledFpr() {
    return FprModels.standardBloom(count, bitCount, k);
  }

  @Override
  public String toString() {
    return "StandardBloomFilter[m=" + bitCount + ", k=" + k + ", n=" + count + "]";
  }
}
