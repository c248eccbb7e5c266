package io.bbfindex.app.bench;

import io.bbfindex.app.lookup.BlockAnswer;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.lookup.FilterSummary;
import io.bbfindex.app.lookup.TxAnswer;
import io.bbfindex.ingest.TxIndexOnly;
import io.bbfindex.ingest.records.DiskTxPos;
import io.bbfindex.ingest.store.FilterInfo;
import io.bbfindex.ingest.store.FilterStore;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * The app's {@link ChainBackend} port over a filter store and, optionally, a bare txindex
 * ({@link TxIndexOnly}): what benchmarks on synthetic data serve through {@link
 * io.bbfindex.app.lookup.LookupService}, since a synthetic txindex has no block index for the
 * production {@code CoreChainBackend} ({@code NodeIndex} needs {@code blocks/index}).
 *
 * <p>Same work per lookup as production: the filter probe is {@link FilterStore#mightContainTx}
 * (the summary BBF); a "maybe" costs one LevelDB get plus the decode of Core's {@code CDiskTxPos}
 * ({@link TxIndexOnly#find}, the code path {@code NodeIndex.findTx} uses). What it cannot do is
 * resolve the containing block (no block index): answers carry a zero block hash and height -1,
 * and count as confirmed.
 */
public final class FilterStoreBackend implements ChainBackend {

  private static final byte[] NO_BLOCK = new byte[32];

  private final FilterStore store;
  private final TxIndexOnly txindex;
  private volatile List<FilterSummary> summaries;
  private final LongAdder reads = new LongAdder();
  private volatile boolean open = true;

  /**
   * @param store closed with this backend
   * @param txindex the txindex that confirms a "maybe", or null (every "maybe" is then refuted);
   *     stays the caller's to close
   */
  public FilterStoreBackend(FilterStore store, TxIndexOnly txindex) {
    this.store = Objects.requireNonNull(store, "store");
    this.txindex = txindex;
  }

  private static FilterSummary summary(FilterInfo f) {
    return new FilterSummary(f.name(), f.kind(), f.blockFile(), f.keys(), f.bits(), f.k(), f.wordBits(),
        f.fillRatio(), f.modelledFpr());
  }

  public FilterStore store() {
    return store;
  }

  @Override
  public boolean txMaybe(byte[] keys, int offset) {
    return store.mightContainTx(keys, offset);
  }

  @Override
  public void txMaybeBatch(byte[] keys, int count, boolean[] out) {
    store.mightContainTxBatch(keys, count, out);
  }

  @Override
  public Optional<TxAnswer> lookupTx(byte[] txid) {
    if (txindex == null) {
      return Optional.empty();
    }
    reads.increment();
    Optional<DiskTxPos> pos = txindex.find(txid);
    return pos.map(p -> new TxAnswer(NO_BLOCK, -1, -1, p.file(), p.dataPos(), p.txOffset(), true));
  }

  @Override
  public boolean blockMaybe(byte[] hash) {
    return store.mightContainBlock(hash, 0);
  }

  @Override
  public Optional<BlockAnswer> lookupBlock(byte[] hash) {
    return Optional.empty();
  }

  @Override
  public List<FilterSummary> filters() {
    // Described on first use, then kept: a fill ratio is a popcount over the filter's bits and the
    // modelled FPR an eq. 3 sum, about a second for mainnet's 5,600 per-file filters, which
    // start-up should not wait for.
    List<FilterSummary> s = summaries;
    if (s == null) {
      synchronized (this) {
        s = summaries;
        if (s == null) {
          s = store.filters().stream().map(FilterStoreBackend::summary).toList();
          summaries = s;
        }
      }
    }
    return s;
  }

  @Override
  public List<FilterSummary> lookupFilters() {
    return store.lookupFilters().stream().map(FilterStoreBackend::summary).toList();
  }

  @Override
  public int tipHeight() {
    return store.manifest().tipHeight();
  }

  @Override
  public long leveldbReads() {
    return reads.sum();
  }

  @Override
  public boolean ready() {
    return open;
  }

  @Override
  public void close() {
    open = false;
    store.close();
  }
}
