package io.bbfindex.filters.bench;

import io.bbfindex.filters.MembershipFilter;

/**
 * What every lookup benchmark reads: a filter holding keys {@code 0 .. n-1} of {@link
 * BenchKeys#MEMBER_SEED}, and precomputed flat probe arrays read as {@code keys[i++ & MASK]}.
 *
 * <ul>
 *   <li>{@link #positives}: {@value #PROBES} members picked at random (all present);
 *   <li>{@link #negatives}: {@value #PROBES} keys of {@link BenchKeys#FOREIGN_SEED} (all absent; a
 *       hit is a false positive);
 *   <li>{@link #positiveBatches}, {@link #negativeBatches}: the same keys cut into {@value
 *       #BATCHES} arrays of {@value #BATCH} keys, since {@code mightContainBatch} reads its keys
 *       from offset 0;
 *   <li>{@link #extras}: {@value #PROBES} keys of {@link BenchKeys#EXTRA_SEED} for insert.
 * </ul>
 *
 * The probe arrays (2 MiB each) are read sequentially, which the hardware prefetcher hides; the
 * filter is what is accessed at random. 2^16 probes are enough that the branch predictor cannot
 * learn which keys stop early.
 */
public abstract class ProbeState {

  /** Probes per array; a power of two. */
  public static final int PROBES = 1 << 16;

  /** Keys per {@code mightContainBatch} call. */
  public static final int BATCH = 1024;

  /** Batches per probe set. */
  public static final int BATCHES = PROBES / BATCH;

  private static final int MASK = PROBES - 1;

  public MembershipFilter filter;
  public byte[] positives;
  public byte[] negatives;
  public byte[] extras;
  public byte[][] positiveBatches;
  public byte[][] negativeBatches;
  public final boolean[] out = new boolean[BATCH];
  public final long[] maybe = new long[BATCH / 64];
  private int cursor;

  /** Builds the probe arrays for a filter holding {@code n} members. */
  protected final void prepareKeys(long n) {
    positives = BenchKeys.randomMembers(BenchKeys.MEMBER_SEED, n, PROBES, 0xC0FFEEL ^ n);
    negatives = BenchKeys.keys(BenchKeys.FOREIGN_SEED, 0, PROBES);
    extras = BenchKeys.keys(BenchKeys.EXTRA_SEED, 0, PROBES);
    positiveBatches = cut(positives);
    negativeBatches = cut(negatives);
  }

  private static byte[][] cut(byte[] keys) {
    byte[][] batches = new byte[BATCHES][];
    for (int b = 0; b < BATCHES; b++) {
      batches[b] =
          java.util.Arrays.copyOfRange(
              keys, b * BATCH * BenchKeys.KEY, (b + 1) * BATCH * BenchKeys.KEY);
    }
    return batches;
  }

  /** Byte offset of the next probe: {@code (i++ & MASK) * 32}. */
  public final int nextOffset() {
    return (cursor++ & MASK) << 5;
  }

  /** Index (0 .. PROBES - 1) of the probe {@link #nextOffset()} returns next. */
  final int nextIndex() {
    return cursor & MASK;
  }

  /** The next batch of {@code batches}: {@code batches[i++ & (BATCHES - 1)]}. */
  public final byte[] nextBatch(byte[][] batches) {
    return batches[cursor++ & (BATCHES - 1)];
  }

  /** Closes the filter if it holds off-heap memory (the BBF). */
  protected final void closeFilter() throws Exception {
    if (filter instanceof AutoCloseable closeable) {
      closeable.close();
    }
    filter = null;
  }
}
