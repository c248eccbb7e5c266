package io.bbfindex.filters.peers;

import static io.bbfindex.filters.Arguments.requireArgument;

import java.util.function.IntToDoubleFunction;

/**
 * False-positive models of the BBF's Bloom-filter peers, as closed forms or exact finite sums (no
 * simulation), so tests can hold measured rates to them and {@code modelledFpr()} can report them.
 *
 * <ul>
 *   <li>{@link #standardBloom}: the classic {@code (1 - e^(-kn/m))^k}. Its error against the exact
 *       rate is of order {@code k^2/m}, far below test noise for filters of 10^5+ bits.
 *   <li>{@link #blockedBloom}: one block of {@code B} bits per key, chosen uniformly among {@code
 *       r}; the block load {@code Z} is Binomial(n, 1/r) and, given {@code Z = z}, a query passes
 *       with {@link #occupancyPass occupancyPass(B, k, k z)}. For {@code B = 512} the textbook
 *       per-block term {@code (1-(1-1/B)^(kz))^k} is too low (it ignores the variance of the number
 *       of set bits in so small a block): by 0.2, 0.6, 0.9 and 2.2 % at 4, 8, 10 and 16 bits a key
 *       with the best k, and more as k grows. Small, but a systematic bias, so the exact occupancy
 *       term is used.
 *   <li>{@link #twoBitBloom}: each probe is a block of {@code B = 32} bits with two bits a key.
 * </ul>
 *
 * <p>The cuckoo filter's model is its own package's ({@code cuckoo.CuckooFprModel}): the product
 * uses that filter, while these peers are what it is compared against.
 */
public final class FprModels {

  /** Binomial terms beyond this many standard deviations from the mean are dropped (< 1e-30). */
  private static final double TAIL_SIGMAS = 12.0;

  private FprModels() {}

  /**
   * Standard Bloom filter: {@code (1 - e^(-k n / m))^k} for {@code n} keys, {@code m} bits and
   * {@code k} independent hash functions.
   */
  public static double standardBloom(long n, long mBits, int k) {
    return Math.pow(-Math.expm1(-(double) k * n / mBits), k);
  }

  /**
   * Blocked Bloom filter (OMBF): {@code n} keys spread uniformly over {@code blocks} blocks of
   * {@code blockBits} bits, each key setting {@code k} uniformly drawn bits (with replacement) of
   * its block.
   *
   * <pre>
   *   FPR = sum_z  C(n, z) (1/r)^z (1 - 1/r)^(n-z) * occupancyPass(B, k, k z)
   * </pre>
   */
  public static double blockedBloom(long n, long blocks, int blockBits, int k) {
    return binomialExpectation(n, 1.0 / blocks, z -> occupancyPass(blockBits, k, (long) k * z));
  }

  /**
   * Two-bit Bloom filter: {@code k} probes a key, each probe choosing one of {@code words} 32-bit
   * words and two uniformly drawn bits (with replacement) in it. A probe's word has received {@code
   * J ~ Binomial(k n, 1/W)} earlier probes, that is {@code 2J} bit draws, and a query probe passes
   * when both of its bits are set:
   *
   * <pre>
   *   p1  = sum_j  C(kn, j) (1/W)^j (1 - 1/W)^(kn-j) * occupancyPass(32, 2, 2 j)
   *       = E[ (1/32)(1 - q^(2J)) + (31/32)(1 - 2 q^(2J) + (30/32)^(2J)) ],   q = 31/32
   *   FPR = p1^k          (the k probes land in independent words)
   * </pre>
   */
  public static double twoBitBloom(long n, long words, int k) {
    double p1 = binomialExpectation((long) k * n, 1.0 / words, j -> occupancyPass(32, 2, 2L * j));
    return Math.pow(p1, k);
  }

  /**
   * Two-bit Bloom filter, from the measured fill ratio {@code F} (set bits / all bits) instead of
   * the key count, as a running system would estimate it: the probe load per word {@code lambda}
   * that explains {@code F} is {@code 1 - F = e^(-lambda (1 - (31/32)^2))}; then {@code p1 = E[
   * occupancyPass(32, 2, 2J)]} with {@code J ~ Poisson(lambda)}, and {@code FPR = p1^k}.
   */
  public static double twoBitBloomFromFill(double fillRatio, int k) {
    requireArgument(fillRatio >= 0 && fillRatio <= 1, "fillRatio must be in [0, 1]", fillRatio);
    if (fillRatio == 1) {
      return 1; // saturated: every probe passes
    }
    double perProbeSetShare = 1 - (31.0 / 32) * (31.0 / 32);
    double lambda = -Math.log1p(-fillRatio) / perProbeSetShare;
    double p1 = poissonExpectation(lambda, j -> occupancyPass(32, 2, 2L * j));
    return Math.pow(p1, k);
  }

  /**
   * Probability that {@code k} positions drawn uniformly with replacement from a block of {@code B}
   * bits are all set after {@code t} uniform bit draws (with replacement) into that block: the
   * exact occupancy form, by the number {@code j} of distinct query positions and
   * inclusion-exclusion over which of them stayed clear.
   *
   * <pre>
   *   occupancyPass(B, k, t) = sum_{j=1..k} P(j distinct among k) * sum_{i=0..j} (-1)^i C(j,i) (1 - i/B)^t
   *   P(j distinct among k)  = S2(k, j) * B (B-1) ... (B-j+1) / B^k      (S2: Stirling, 2nd kind)
   * </pre>
   */
  public static double occupancyPass(int blockBits, int k, long draws) {
    double[][] stirling = stirlingSecondKind(k);
    double total = 0;
    double fallingOverPower = 1; // B (B-1) ... (B-j+1) / B^j, built up with j
    for (int j = 1; j <= Math.min(k, blockBits); j++) {
      fallingOverPower *= (double) (blockBits - j + 1) / blockBits;
      double distinct = stirling[k][j] * fallingOverPower * Math.pow(1.0 / blockBits, k - j);
      double allSet = 0;
      double binom = 1;
      for (int i = 0; i <= j; i++) {
        double clear = Math.pow(1 - (double) i / blockBits, draws);
        allSet += ((i & 1) == 0 ? binom : -binom) * clear;
        binom = binom * (j - i) / (i + 1);
      }
      total += distinct * Math.max(0, allSet);
    }
    return Math.min(1, total);
  }

  /** The {@code k} in {@code [1, maxK]} with the lowest {@code model(k)} (the smallest on ties). */
  public static int bestK(int maxK, IntToDoubleFunction model) {
    int best = 1;
    double bestFpr = model.applyAsDouble(1);
    for (int k = 2; k <= maxK; k++) {
      double fpr = model.applyAsDouble(k);
      if (fpr < bestFpr) {
        best = k;
        bestFpr = fpr;
      }
    }
    return best;
  }

  /**
   * {@code E[f(Z)]} for {@code Z ~ Binomial(trials, p)}, summing the probability mass outward from
   * the mode by the ratio recurrence (no log-gamma needed) until it is negligible.
   */
  static double binomialExpectation(long trials, double p, IntToDoubleFunction f) {
    if (trials == 0 || p == 0) {
      return f.applyAsDouble(0);
    }
    if (p >= 1) {
      return f.applyAsDouble(Math.toIntExact(trials));
    }
    double mean = trials * p;
    double sd = Math.sqrt(mean * (1 - p));
    long mode = Math.min(trials, (long) Math.floor((trials + 1) * p));
    long lo = Math.max(0, (long) Math.floor(mean - TAIL_SIGMAS * sd) - 8);
    long hi = Math.min(trials, (long) Math.ceil(mean + TAIL_SIGMAS * sd) + 8);
    double odds = p / (1 - p);
    double weightSum = 1;
    double valueSum = f.applyAsDouble(Math.toIntExact(mode));
    double w = 1;
    for (long z = mode; z < hi; z++) { // pmf(z+1)/pmf(z) = (trials - z)/(z + 1) * p/(1-p)
      w *= (double) (trials - z) / (z + 1) * odds;
      weightSum += w;
      valueSum += w * f.applyAsDouble(Math.toIntExact(z + 1));
    }
    w = 1;
    for (long z = mode; z > lo; z--) { // pmf(z-1)/pmf(z) = z/(trials - z + 1) * (1-p)/p
      w *= (double) z / (trials - z + 1) / odds;
      weightSum += w;
      valueSum += w * f.applyAsDouble(Math.toIntExact(z - 1));
    }
    return valueSum / weightSum;
  }

  /** {@code E[f(J)]} for {@code J ~ Poisson(lambda)}, by the same outward summation. */
  static double poissonExpectation(double lambda, IntToDoubleFunction f) {
    if (lambda == 0) {
      return f.applyAsDouble(0);
    }
    double sd = Math.sqrt(lambda);
    long mode = (long) Math.floor(lambda);
    long lo = Math.max(0, (long) Math.floor(lambda - TAIL_SIGMAS * sd) - 8);
    long hi = (long) Math.ceil(lambda + TAIL_SIGMAS * sd) + 8;
    double weightSum = 1;
    double valueSum = f.applyAsDouble(Math.toIntExact(mode));
    double w = 1;
    for (long j = mode; j < hi; j++) { // pmf(j+1)/pmf(j) = lambda/(j+1)
      w *= lambda / (j + 1);
      weightSum += w;
      valueSum += w * f.applyAsDouble(Math.toIntExact(j + 1));
    }
    w = 1;
    for (long j = mode; j > lo; j--) { // pmf(j-1)/pmf(j) = j/lambda
      w *= j / lambda;
      weightSum += w;
      valueSum += w * f.applyAsDouble(Math.toIntExact(j - 1));
    }
    return valueSum / weightSum;
  }

  /** Stirling numbers of the second kind S2(a, b) for 0 <= b <= a <= k, as doubles. */
  private static double[][] stirlingSecondKind(int k) {
    double[][] s = new double[k + 1][k + 1];
    s[0][0] = 1;
    for (int a = 1; a <= k; a++) {
      for (int b = 1; b <= a; b++) {
        s[a][b] = b * s[a - 1][b] + s[a - 1][b - 1];
      }
    }
    return s;
  }
}
