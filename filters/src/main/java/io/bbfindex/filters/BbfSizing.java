package io.bbfindex.filters;

import static io.bbfindex.filters.Arguments.requireArgument;

import org.jspecify.annotations.Nullable;

/**
 * False-positive models and sizing for the BBF and, for comparison, the standard Bloom filter.
 *
 * <h2>The BBF model (paper eq. 3)</h2>
 *
 * A group receives Z ~ Binomial(n, 1/r) of the n keys. A bit of one word stays clear after z keys
 * with probability (1 - 1/lw)^z, and an absent key is a false positive when its k bits (one per
 * word, independent) are all set:
 *
 * <pre>
 *   FPR = sum over z of  C(n, z) (1/r)^z (1 - 1/r)^(n-z)  *  (1 - (1 - 1/lw)^z)^k
 * </pre>
 *
 * The sum is evaluated in log space, walking outwards from the mode with the ratio pmf(z) / pmf(z -
 * 1) = (n - z + 1) / z * p / (1 - p), and stops in each direction once the weight falls below
 * 1e-300 of the mode's; the weights are normalised by their own sum, so no log-gamma is needed. The
 * walk visits about 75 standard deviations of Z, a few hundred terms for realistic loads. When even
 * the groups 40 standard deviations below the mean are saturated (every bit set, to double
 * precision) the answer is 1 without a walk; so the walk only runs for means under about 6,000 keys
 * per group and never takes more than a few thousand terms, whatever n and r (up to 2^63 and 2^32).
 */
public final class BbfSizing {

  /** ln(1e-300): terms smaller than this (relative to the mode's) are dropped. */
  private static final double LOG_TAIL = Math.log(1e-300);

  private static final int[] K_FOR_LW32 = {2, 4, 8, 16};
  private static final int[] K_FOR_LW64 = {2, 4, 8};

  private BbfSizing() {}

  /**
   * Eq. 3 of the paper: the probability that a key never added is reported present, after {@code n}
   * keys were added to a filter of geometry {@code g}.
   *
   * @throws IllegalArgumentException if {@code n < 0}
   */
  public static double modelFpr(long n, BbfGeometry g) {
    return modelFpr(n, (double) g.groups(), g.k(), g.wordBits());
  }

  /**
   * Eq. 3 for any real number of groups {@code groups >= 1} (not only whole ones), e.g. to
   * reproduce the paper's m = 100,000-bit examples.
   *
   * @throws IllegalArgumentException if {@code n < 0}, {@code groups < 1} or the shape is invalid
   */
  public static double modelFpr(long n, double groups, int k, int wordBits) {
    requireArgument(n >= 0, "n must be >= 0", n);
    requireArgument(
        groups >= 1 && !Double.isInfinite(groups), "groups must be a finite number >= 1", groups);
    BbfGeometry.checkShape(k, wordBits);
    if (n == 0) {
      return 0;
    }
    double logBitClear = Math.log1p(-1.0 / wordBits);
    if (groups == 1) {
      return fprAtLoad(n, logBitClear, k);
    }
    double p = 1 / groups;
    double mean = n * p;
    // Every key count this far below the mean has probability under e^-800 (Chernoff). If even
    // there a group is saturated to double precision, so is every group that matters: FPR = 1.
    // This also bounds the walk below to mean < about 6000 (a few thousand terms) for any n, so
    // absurd key counts (a corrupt or hostile file header) cannot make this slow.
    double saturatedFrom = mean - 40 * Math.sqrt(mean);
    if (saturatedFrom > 0 && fprAtLoad((long) saturatedFrom, logBitClear, k) == 1.0) {
      return 1.0;
    }
    double logOdds = Math.log(p) - Math.log1p(-p);
    long mode = Math.min(n, (long) Math.floor(mean + p));
    double weights = 0;
    double weighted = 0;
    double logWeight = 0;
    for (long z = mode; z <= n; z++) {
      if (z > mode) {
        logWeight += Math.log((double) (n - z + 1) / z) + logOdds;
        if (logWeight < LOG_TAIL) {
          break;
        }
      }
      double w = Math.exp(logWeight);
      weights += w;
      weighted += w * fprAtLoad(z, logBitClear, k);
    }
    logWeight = 0;
    for (long z = mode - 1; z >= 0; z--) {
      logWeight += Math.log((double) (z + 1) / (n - z)) - logOdds;
      if (logWeight < LOG_TAIL) {
        break;
      }
      double w = Math.exp(logWeight);
      weights += w;
      weighted += w * fprAtLoad(z, logBitClear, k);
    }
    return weighted / weights;
  }

  /** (1 - (1 - 1/lw)^z)^k, with the inner term as -expm1 so small z stays exact. */
  private static double fprAtLoad(long z, double logBitClear, int k) {
    return Math.pow(-Math.expm1(z * logBitClear), k);
  }

  /**
   * The standard Bloom filter's false-positive rate (1 - e^(-kn/m))^k.
   *
   * @throws IllegalArgumentException if {@code n < 0}, {@code mBits < 1} or {@code k < 1}
   */
  public static double bloomFpr(long n, long mBits, int k) {
    requireArgument(n >= 0, "n must be >= 0", n);
    requireArgument(mBits >= 1, "mBits must be >= 1", mBits);
    requireArgument(k >= 1, "k must be >= 1", k);
    return Math.pow(-Math.expm1(-(double) k * n / mBits), k);
  }

  /**
   * Bits a standard Bloom filter with {@code k} hash functions needs so that {@code n} keys give at
   * most {@code fpr}: m = ceil(-k n / ln(1 - fpr^(1/k))).
   *
   * @throws IllegalArgumentException if {@code fpr} is not in (0, 1), {@code n < 1} or {@code k <
   *     1}
   */
  public static long bloomBitsFor(long n, double fpr, int k) {
    requireArgument(n >= 1, "n must be >= 1", n);
    requireArgument(k >= 1, "k must be >= 1", k);
    requireArgument(fpr > 0 && fpr < 1, "fpr must be in (0, 1)", fpr);
    return (long) Math.ceil(-(double) k * n / Math.log1p(-Math.pow(fpr, 1.0 / k)));
  }

  /**
   * Bits a standard Bloom filter with the best (real-valued) number of hash functions needs so that
   * {@code n} keys give at most {@code fpr}: m = ceil(n ln(1/fpr) / (ln 2)^2). This is the
   * yardstick of the paper's section 2.1.
   *
   * @throws IllegalArgumentException if {@code fpr} is not in (0, 1) or {@code n < 1}
   */
  public static long bloomBitsFor(long n, double fpr) {
    requireArgument(n >= 1, "n must be >= 1", n);
    requireArgument(fpr > 0 && fpr < 1, "fpr must be in (0, 1)", fpr);
    return (long) Math.ceil(-n * Math.log(fpr) / (Math.log(2) * Math.log(2)));
  }

  /**
   * How many more bits the BBF uses than the best standard Bloom filter ({@link #bloomBitsFor(long,
   * double)}) reaching the same false-positive rate, as a fraction (0.1540 = 15.40 % more). The
   * paper reports 15.40 % (lw = 32) and 11.98 % (lw = 64) for n = 10^4, k = 4, m = 100,000 bits.
   */
  public static double extraBitsVsBloom(long n, BbfGeometry g) {
    return extraBitsVsBloom(n, (double) g.groups(), g.k(), g.wordBits());
  }

  /** {@link #extraBitsVsBloom(long, BbfGeometry)} for any real number of groups. */
  public static double extraBitsVsBloom(long n, double groups, int k, int wordBits) {
    double fpr = modelFpr(n, groups, k, wordBits);
    double bbfBits = groups * k * wordBits;
    return bbfBits / bloomBitsFor(n, fpr) - 1;
  }

  /**
   * The smallest BBF for {@code n} keys at false-positive rate {@code targetFpr} or better: over
   * every (k, lw) the smallest r (any integer, {@link BbfGeometry.Indexing#MULTIPLY_SHIFT}) meeting
   * the target by eq. 3, then the fewest bits; on equal bits lw = 64 (fewer position bits wasted,
   * lower FPR per bit), then the lower modelled FPR. The result is at most one group (64 bytes)
   * above {@link #bitsNeeded}: no power-of-two rounding.
   *
   * @throws IllegalArgumentException if {@code n < 0}, {@code targetFpr} is not in (0, 1), or no
   *     geometry with at most 2^32 groups reaches the target
   */
  public static BbfGeometry forTarget(long n, double targetFpr) {
    checkTarget(n, targetFpr);
    BbfGeometry best = null;
    double bestFpr = Double.NaN;
    for (int wordBits : new int[] {64, 32}) {
      for (int k : wordBits == 64 ? K_FOR_LW64 : K_FOR_LW32) {
        BbfGeometry g = smallest(n, targetFpr, k, wordBits);
        if (g == null) {
          continue;
        }
        double fpr = modelFpr(n, g);
        boolean better =
            best == null
                || g.bitSize() < best.bitSize()
                || (g.bitSize() == best.bitSize()
                    && (g.wordBits() > best.wordBits()
                        || (g.wordBits() == best.wordBits() && fpr < bestFpr)));
        if (better) {
          best = g;
          bestFpr = fpr;
        }
      }
    }
    if (best == null) {
      throw new IllegalArgumentException(
          "no BBF with at most 2^32 groups reaches FPR " + targetFpr + " for " + n + " keys");
    }
    return best;
  }

  /**
   * The smallest r such that {@code n} keys in a (r, k, lw) filter give at most {@code targetFpr}.
   *
   * @throws IllegalArgumentException for invalid arguments or an unreachable target
   */
  public static BbfGeometry forTarget(long n, double targetFpr, int k, int wordBits) {
    checkTarget(n, targetFpr);
    BbfGeometry.checkShape(k, wordBits);
    BbfGeometry g = smallest(n, targetFpr, k, wordBits);
    if (g == null) {
      throw new IllegalArgumentException(
          "no BBF with k = "
              + k
              + ", lw = "
              + wordBits
              + " and at most 2^32 groups reaches FPR "
              + targetFpr
              + " for "
              + n
              + " keys");
    }
    return g;
  }

  /**
   * The bits eq. 3 needs for {@code n} keys at {@code targetFpr}: the least, over every (k, lw), of
   * r* k lw, where r* is the real (not necessarily whole) group count at which eq. 3 equals the
   * target (found by bisection to 1e-9 relative). The yardstick {@link #forTarget(long, double)}'s
   * geometries are measured against.
   *
   * @throws IllegalArgumentException as {@link #forTarget(long, double)}
   */
  public static double bitsNeeded(long n, double targetFpr) {
    checkTarget(n, targetFpr);
    double best = Double.POSITIVE_INFINITY;
    for (int wordBits : new int[] {64, 32}) {
      for (int k : wordBits == 64 ? K_FOR_LW64 : K_FOR_LW32) {
        if (modelFpr(n, (double) BbfGeometry.MAX_GROUPS, k, wordBits) > targetFpr) {
          continue;
        }
        double lo = 1;
        double hi = BbfGeometry.MAX_GROUPS;
        if (modelFpr(n, lo, k, wordBits) <= targetFpr) {
          hi = lo;
        }
        while (hi - lo > 1e-9 * hi) {
          double mid = (lo + hi) / 2;
          if (modelFpr(n, mid, k, wordBits) <= targetFpr) {
            hi = mid;
          } else {
            lo = mid;
          }
        }
        best = Math.min(best, hi * k * wordBits);
      }
    }
    if (Double.isInfinite(best)) {
      throw new IllegalArgumentException(
          "no BBF with at most 2^32 groups reaches FPR " + targetFpr + " for " + n + " keys");
    }
    return best;
  }

  /** Binary search over r in [1, 2^32]; the FPR falls as r grows. */
  private static @Nullable BbfGeometry smallest(long n, double targetFpr, int k, int wordBits) {
    if (modelFpr(n, (double) BbfGeometry.MAX_GROUPS, k, wordBits) > targetFpr) {
      return null;
    }
    long lo = 1;
    long hi = BbfGeometry.MAX_GROUPS;
    while (lo < hi) {
      long mid = lo + (hi - lo) / 2;
      if (modelFpr(n, (double) mid, k, wordBits) <= targetFpr) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return new BbfGeometry(lo, k, wordBits);
  }

  private static void checkTarget(long n, double targetFpr) {
    requireArgument(n >= 0, "n must be >= 0", n);
    requireArgument(targetFpr > 0 && targetFpr < 1, "targetFpr must be in (0, 1)", targetFpr);
  }
}
