package io.bbfindex.app.core;

import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.ingest.store.FilterStore;
import java.util.Objects;

/**
 * How a backend probes a {@link FilterStore}: the one place that decides which kernel answers
 * which lookup, so the production backend and the benchmarks' backend measure the same path.
 *
 * <p>Single txids go through the summary filter seen through the scalar kernel. WHY: a JFR profile
 * of the server under wrk's negative-lookup load put the vector kernel's single-key test ({@code
 * VectorGroupKernel.test}) at about 40% of the tx route's own CPU samples: for one key the vector
 * set-up costs more than the 64-byte group test it speeds up. Both kernels set and test exactly the
 * same bits (the filters module differential-tests them), so answers do not change; batches keep
 * the store's kernel, which overlaps their cache misses.
 */
public final class StoreProbes {
  private final FilterStore store;
  private final BlockedBloomFilter singleTxProbe;

  public StoreProbes(FilterStore store) {
    this.store = Objects.requireNonNull(store, "store");
    this.singleTxProbe = store.summaryFilter().withKernel(BlockedBloomFilter.Kernel.SCALAR);
  }

  /** One txid at {@code keys[offset .. offset + 32)}: {@code false} = certainly absent. */
  public boolean txMaybe(byte[] keys, int offset) {
    return singleTxProbe.mightContain(keys, offset);
  }

  /** {@code count} consecutive txids into {@code out}, through the store's (vector) kernel. */
  public void txMaybeBatch(byte[] keys, int count, boolean[] out) {
    store.mightContainTxBatch(keys, count, out);
  }

  /** A block hash: {@code false} = certainly not in the block index. */
  public boolean blockMaybe(byte[] hash) {
    return store.mightContainBlock(hash, 0);
  }
}
