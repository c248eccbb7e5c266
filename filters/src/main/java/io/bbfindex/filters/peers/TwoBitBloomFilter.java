package io.bbfindex.filters.peers;

import static io.bbfindex.filters.Arguments.requireArgument;

import io.bbfindex.filters.MembershipFilter;
import io.bbfindex.filters.hash.Checks;
import io.bbfindex.filters.hash.Murmur3;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * The two-bit Bloom filter of Floe's "Two Bits Are Better Than One" (seed 002): a fixed-size array
 * of 32-bit words where each probe of a key sets, and tests, <em>two</em> bits of <em>one</em>
 * word, so one memory access and one atomic OR still carry two bits of information. Inserts are
 * lock-free and may run from many threads at once.
 *
 * <p><b>Probe layout.</b> Floe cuts one 32-bit hash into a word index (16 bits for its 2^16 words)
 * and two 5-bit bit positions. Here each probe takes one 64-bit hash lane {@code x} and cuts it the
 * same way, mirrored so the word count need not be a power of two:
 *
 * <pre>
 *   word = (x * W) >>> 64        the high bits of x: Floe's mask when W is a power of two
 *   b1   = x & 31                bits 0-4
 *   b2   = (x >>> 5) & 31        bits 5-9   (b1 == b2 happens, 1 time in 32: one bit set)
 *   mask = (1 << b1) | (1 << b2)
 * </pre>
 *
 * The index uses the top bits and the positions the bottom ten, so they are disjoint for any {@code
 * W <= 2^54}. Probe {@code i} uses lane {@code i % 2} of Murmur3 x64_128 with seed {@code seed + i
 * / 2}: one evaluation for Floe's {@code k = 1} and for {@code k = 2}.
 *
 * <p><b>Concurrency.</b> {@link #add} ORs the mask in with {@link VarHandle#getAndBitwiseOr} (one
 * {@code lock or} on x86), skipping it when the bits are already set; OR commutes, so the table
 * after concurrent inserts is exactly the table of the same inserts done one by one. {@link
 * #mightContain} reads plainly: it sees every key whose {@code add} happened-before it (for example
 * after {@link Thread#join}); a key added concurrently may or may not be seen yet.
 *
 * <p><b>Models.</b> From the key count, {@link FprModels#twoBitBloom}: the probed word holds {@code
 * J ~ Binomial(kn, 1/W)} earlier probes, i.e. {@code 2J} bit draws, and
 *
 * <pre>
 *   p1  = E[ (1/32)(1 - (31/32)^(2J)) + (31/32)(1 - 2 (31/32)^(2J) + (30/32)^(2J)) ]
 *   FPR = p1^k
 * </pre>
 *
 * From the fill ratio alone, {@link FprModels#twoBitBloomFromFill} (see {@link
 * #fprFromFillRatio()}). Floe's monitoring advice is to rebuild above 70 % fill.
 */
public final class TwoBitBloomFilter implements MembershipFilter {

  /** Most probes a key may use. */
  public static final int MAX_K = 16;

  private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(int[].class);

  private final int[] words;
  private final int k;
  private final int seed;
  private final LongAdder count = new LongAdder();

  /**
   * @param wordCount number of 32-bit words {@code W} (Floe: 65,536 = 256 KiB)
   * @param k probes a key, 1 (Floe's choice) to {@value #MAX_K}
   * @param seed Murmur3 seed of probes 0 and 1
   * @throws IllegalArgumentException if {@code wordCount} or {@code k} is out of range
   */
  public TwoBitBloomFilter(int wordCount, int k, int seed) {
    requireArgument(
        wordCount >= 1 && wordCount <= Integer.MAX_VALUE - 8,
        "wordCount must be in [1, " + (Integer.MAX_VALUE - 8) + "]",
        wordCount);
    requireArgument(k >= 1 && k <= MAX_K, "k must be in [1, " + MAX_K + "]", k);
    this.words = new int[wordCount];
    this.k = k;
    this.seed = seed;
  }

  /**
   * A filter of {@code ceil(expectedKeys * bitsPerKey / 32)} words with the {@code k} that
   * minimises the model at {@code expectedKeys}.
   *
   * @throws IllegalArgumentException if the size does not fit an {@code int[]}
   */
  public static TwoBitBloomFilter forKeys(long expectedKeys, double bitsPerKey) {
    long wordCount = Math.ceilDiv(Checks.totalBits(expectedKeys, bitsPerKey), 32);
    requireArgument(
        wordCount <= Integer.MAX_VALUE - 8, "expectedKeys * bitsPerKey / 32 too large", wordCount);
    return new TwoBitBloomFilter((int) wordCount, optimalK(expectedKeys, wordCount), 0);
  }

  /** The {@code k} in {@code [1, MAX_K]} that minimises the model for n keys in W words. */
  public static int optimalK(long n, long wordCount) {
    return FprModels.bestK(MAX_K, k -> FprModels.twoBitBloom(n, wordCount, k));
  }

  /** Thread-safe: may run concurrently with other {@code add} and {@code mightContain} calls. */
  @Override
  public boolean add(byte[] keys, int offset) {
    walk(keys, offset, true);
    count.increment();
    return true;
  }

  @Override
  public boolean mightContain(byte[] keys, int offset) {
    return walk(keys, offset, false);
  }

  /**
   * Visits the key's {@code k} probes, OR-ing each mask in ({@code insert}) or testing it
   * (returning {@code false} at the first probe with a clear bit). One loop for both, so a lookup
   * tests exactly what an insert set; callers pass constants, folded by the JIT after inlining.
   */
  private boolean walk(byte[] keys, int offset, boolean insert) {
    Objects.checkFromIndexSize(offset, KEY_BYTES, keys.length);
    Murmur3.Hash128 h = Murmur3.hashKey(keys, offset, seed);
    for (int i = 0; i < k; i++) {
      if (i > 0 && (i & 1) == 0) {
        h = Murmur3.hashKey(keys, offset, seed + (i >>> 1));
      }
      long x = (i & 1) == 0 ? h.h1() : h.h2();
      int word = (int) Checks.reduce(x, words.length);
      int mask = probeMask(x);
      if ((words[word] & mask) != mask) {
        if (!insert) {
          return false;
        }
        // Only when a bit is missing: set bits need no atomic and cause no line contention.
        int unused = (int) WORDS.getAndBitwiseOr(words, word, mask);
      }
    }
    return true;
  }

  /** Bits 0-4 and 5-9 of the probe's lane name the two bits set in its word. */
  private static int probeMask(long x) {
    return (1 << (x & 31)) | (1 << ((x >>> 5) & 31));
  }

  @Override
  public long count() {
    return count.sum();
  }

  @Override
  public long bitSize() {
    return 32L * words.length;
  }

  public int wordCount() {
    return words.length;
  }

  public int k() {
    return k;
  }

  /** Share of all bits that are set: the occupancy Floe recommends watching (rebuild above 0.7). */
  public double fillRatio() {
    long set = 0;
    for (int word : words) {
      set += Integer.bitCount(word);
    }
    return (double) set / bitSize();
  }

  /** The model from the key count: {@link FprModels#twoBitBloom}. */
  @Override
  public double modelledFpr() {
    return FprModels.twoBitBloom(count(), words.length, k);
  }

  /** The model from the present {@link #fillRatio()}: {@link FprModels#twoBitBloomFromFill}. */
  public double fprFromFillRatio() {
    return FprModels.twoBitBloomFromFill(fillRatio(), k);
  }

  /** A copy of the words, for tests that compare tables. */
  int[] copyOfWords() {
    return words.clone();
  }

  @Override
  public String toString() {
    return "TwoBitBloomFilter[words=" + words.length + ", k=" + k + ", n=" + count() + "]";
  }
}
