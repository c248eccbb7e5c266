package io.bbfindex.benchmarks.store;

import io.bbfindex.app.bitcoincore.FilterDescriptions;
import io.bbfindex.app.lookup.BlockAnswer;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.lookup.FilterSummary;
import io.bbfindex.app.lookup.TxAnswer;
import io.bbfindex.ingest.records.DiskTxPos;
import io.bbfindex.ingest.store.FilterStore;
import io.bbfindex.ingest.testing.TxIndexOnly;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The app's {@link ChainBackend} port over a filter store and, optionally, a bare txindex ({@link
 * TxIndexOnly}): what benchmarks on synthetic data serve through {@link
 * io.bbfindex.app.lookup.LookupService}, since a synthetic txindex has no block index for the
 * production {@code CoreChainBackend} ({@code NodeIndex} needs {@code blocks/index}).
 *
 * <p>Same work per lookup as production: the filter probes are the store's, as in {@code
 * CoreChainBackend} (the summary BBF); a "maybe" costs one LevelDB get plus the decode of Core's
 * {@code CDiskTxPos} ({@link TxIndexOnly#find}, the code path {@code NodeIndex.findTx} uses). What
 * it cannot do is resolve the containing block (no block index): answers carry a zero block hash
 * and height -1, and count as confirmed.
 */
public final class FilterStoreBackend implements ChainBackend {

  private static final byte[] NO_BLOCK = new byte[32];

  private final FilterStore store;
  private final @Nullable Function<byte[], Optional<DiskTxPos>> txindex;
  private final FilterDescriptions descriptions;
  private final LongAdder reads = new LongAdder();
  private volatile boolean open = true;

  /**
   * @param store closed with this backend
   * @param txindex the txindex that confirms a "maybe", or null (every "maybe" is then refuted);
   *     stays the caller's to close
   */
  public FilterStoreBackend(FilterStore store, @Nullable TxIndexOnly txindex) {
    this(txindex == null ? null : txindex::find, store);
  }

  /**
   * @param store closed with the backend
   * @param find reads a txid's row on a "maybe" (empty when absent): how a benchmark puts another
   *     reader of the same txindex behind the service
   */
  public static FilterStoreBackend reading(
      FilterStore store, Function<byte[], Optional<DiskTxPos>> find) {
    return new FilterStoreBackend(Objects.requireNonNull(find, "find"), store);
  }

  private FilterStoreBackend(
      @Nullable Function<byte[], Optional<DiskTxPos>> find, FilterStore store) {
    this.store = Objects.requireNonNull(store, "store");
    this.descriptions = new FilterDescriptions(store);
    this.txindex = find;
  }

  public FilterStore store() {
    return store;
  }

  @Override
  public boolean txMaybe(byte[] keys, int offset) {
    return store.mightContainTx(keys, offset);
  }

  @Override
  public int txMaybeBatch(byte[] keys, int count, long[] maybe) {
    return store.mightContainTxBatch(keys, count, maybe);
  }

  @Override
  public Optional<TxAnswer> lookupTx(byte[] txid) {
    if (txindex == null) {
      return Optional.empty();
    }
    reads.increment();
    Optional<DiskTxPos> pos = txindex.apply(txid);
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
    return descriptions.all();
  }

  @Override
  public List<FilterSummary> lookupFilters() {
    return descriptions.lookupFilters();
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

  @Override
  public String txindexLayout() {
    return "legacy";
  }

  @Override
  public String txindexLocation() {
    return "indexes/txindex";
  }

  @Override
  public String txindexSource() {
    return "node";
  }
}
