package io.bbfindex.filters.cuckoo;

/**
 * The false-positive rate of the {@link CuckooFilter}: the exact form its {@code modelledFpr()}
 * reports and the looser textbook per-slot bound, as closed forms (no simulation), so tests can
 * hold measured rates to them.
 */
public final class CuckooFprModel {

  private CuckooFprModel() {}

  /**
   * Cuckoo filter, per-slot form (the usual textbook bound): buckets of {@code slotsPerBucket}
   * slots at load {@code alpha} (occupied slots / all slots), {@code fingerprintBits}-bit
   * fingerprints that avoid the value 0 (the empty mark), so a stored fingerprint matches a foreign
   * key's with probability {@code eps = 1/(2^f - 1)}. A query reads {@code 2b} slots, {@code 2 b
   * alpha} of them occupied on average:
   *
   * <pre>
   *   FPR <= 1 - (1 - eps)^(2 b alpha)  ~  2 b alpha / 2^f
   * </pre>
   *
   * It is an upper bound (Jensen's inequality over the occupancy of the two buckets) that
   * overstates by up to 3 % at {@code f = 4}; {@link #exact(long, long, int)} is exact.
   */
  public static double slotBound(double alpha, int slotsPerBucket, int fingerprintBits) {
    double eps = 1.0 / ((double) (1L << fingerprintBits) - 1);
    return -Math.expm1(2.0 * slotsPerBucket * alpha * Math.log1p(-eps));
  }

  /**
   * Cuckoo filter, exact: a foreign key {@code x} passes exactly when some stored key {@code y} has
   * the same fingerprint and the same bucket pair (a fingerprint in {@code x}'s buckets belongs to
   * a key whose pair shares a bucket with {@code x}'s, and the pair is a function of one bucket and
   * the fingerprint). Where {@code y} sits does not matter, and the {@code n} stored keys hash
   * independently, so with {@code eps = 1/(2^f - 1)} and {@code B} buckets
   *
   * <pre>
   *   P(y matches x) = eps * (2/B - 1/B^2)      (y's primary bucket is one of x's two; they
   *                                               coincide when the fingerprint's offset is 0)
   *   FPR = 1 - (1 - eps (2B - 1) / B^2)^n  ~  1 - e^(-2 b alpha eps)
   * </pre>
   */
  public static double exact(long n, long buckets, int fingerprintBits) {
    double eps = 1.0 / ((double) (1L << fingerprintBits) - 1);
    double match = eps * (2.0 * buckets - 1) / ((double) buckets * buckets);
    return -Math.expm1(n * Math.log1p(-match));
  }
}
