package io.bbfindex.app.bitcoincore;

import io.bbfindex.app.lookup.BackendUnavailableException;
import io.bbfindex.app.lookup.BlockAnswer;
import io.bbfindex.app.lookup.BlockData;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.lookup.FilterSummary;
import io.bbfindex.app.lookup.StoreInconsistentException;
import io.bbfindex.app.lookup.TxAnswer;
import io.bbfindex.app.pruned.PrunedBackfill;
import io.bbfindex.app.pruned.PrunedHistory;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.TxIndexLayout;
import io.bbfindex.ingest.blockfile.DamagedBlockException;
import io.bbfindex.ingest.ownindex.OwnTxLookup;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.BlockStatus;
import io.bbfindex.ingest.records.IndexReadException;
import io.bbfindex.ingest.records.TxLocation;
import io.bbfindex.ingest.store.FilterStore;
import io.bbfindex.ingest.store.FilterStoreChangedException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.NoSuchFileException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.DoubleSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The production backend: chain-ingest's {@link FilterStore} in front (the summary filter over
 * every txid, one cache line per probe, and the block-hash filter), Bitcoin Core's own indexes
 * behind it ({@link NodeIndex} over private snapshots of the node's LevelDBs).
 *
 * <p>The genesis coinbase, which Core never writes to its txindex, is in the summary filter (the
 * builder adds it) and {@link NodeIndex#findTx} answers it from the block index, so it needs no
 * special case here.
 *
 * <p>The store's filters are verified in-memory copies: a filter file changed under the server
 * cannot change an answer. A watcher ({@link StoreRecovery}) notices such a change within about a
 * second, makes the backend not ready ({@link #notReadyReason}) and reopens the store (re-verified,
 * rebuilt if bad) while lookups go on from the copy. In the first seconds after start the store may
 * still answer from its verified mappings while the copies are made ({@code
 * FilterStore.openMappedFirst}); a lookup that finds its file changed then gets a 503 (and the
 * backend is not ready) instead of an answer.
 */
public final class CoreChainBackend implements ChainBackend {
  private static final System.Logger LOG = System.getLogger(CoreChainBackend.class.getName());

  /** How long a replaced store stays in memory for lookups that already hold it. */
  private static final long RETIRE_GRACE_MS = 2_000;

  private final NodeIndex index;

  /**
   * bbf-index's own txid index, when it answers lookups instead of the node's txindex ({@code
   * --txindex own}, or a node without one).
   */
  private final Optional<OwnTxLookup> own;

  private final BlockData blockData;

  /** A pruning node's fingerprints of deleted blocks' txids ({@link PrunedHistory}). */
  private final Optional<PrunedHistory> pruned;

  private volatile @Nullable PrunedBackfill backfill;
  private volatile FilterStore store;
  private volatile FilterDescriptions descriptions;
  private volatile boolean open = true;

  /**
   * Why the backend is not ready (its store changed on disk and is being verified again), or null
   * while it is.
   */
  private volatile @Nullable String notReady;

  private final Thread watcher;

  /**
   * Takes ownership of both: {@link #close()} closes them. A store changed on disk is re-verified
   * by opening it again (a store that then fails its checksums leaves the backend not ready, still
   * answering from the copy verified before).
   */
  public CoreChainBackend(NodeIndex index, FilterStore store) {
    this(index, store, () -> FilterStore.open(store.dir()));
  }

  /**
   * As {@link #CoreChainBackend(NodeIndex, FilterStore)}; {@code reopen} brings a changed store
   * back (e.g. {@code FilterBuilder.ensureBuilt}, which rebuilds what fails its checksums).
   */
  CoreChainBackend(NodeIndex index, FilterStore store, StoreRecovery.Reopen reopen) {
    this(index, store, reopen, Optional.empty());
  }

  /**
   * As {@link #CoreChainBackend(NodeIndex, FilterStore)}, with txid lookups answered by the own
   * index {@code own} (owned too) instead of the node's txindex: {@code serve --follow} beside a
   * node without one.
   */
  public static CoreChainBackend withOwnIndex(NodeIndex index, FilterStore store, OwnTxLookup own) {
    return new CoreChainBackend(
        index, store, () -> FilterStore.open(store.dir()), Optional.of(own));
  }

  /**
   * As {@link #CoreChainBackend(NodeIndex, FilterStore, StoreRecovery.Reopen)}; a present {@code
   * own} answers txid lookups (and is closed with the backend).
   */
  CoreChainBackend(
      NodeIndex index, FilterStore store, StoreRecovery.Reopen reopen, Optional<OwnTxLookup> own) {
    this(index, store, reopen, own, Optional.empty());
  }

  /**
   * As {@link #CoreChainBackend(NodeIndex, FilterStore, StoreRecovery.Reopen, Optional)}; a present
   * {@code pruned} answers the txids of blocks the node pruned (and is closed with the backend).
   */
  CoreChainBackend(
      NodeIndex index,
      FilterStore store,
      StoreRecovery.Reopen reopen,
      Optional<OwnTxLookup> own,
      Optional<PrunedHistory> pruned) {
    this.pruned = Objects.requireNonNull(pruned, "pruned");
    this.own = Objects.requireNonNull(own, "own");
    this.index = Objects.requireNonNull(index, "index");
    this.store = Objects.requireNonNull(store, "store");
    this.descriptions = new FilterDescriptions(store);
    this.blockData = new CoreBlockData(index);
    this.watcher = StoreRecovery.watch(new Watched(), reopen);
  }

  public NodeIndex index() {
    return index;
  }

  /** Runs {@code b} with this backend: closed with it. */
  void ownBackfill(PrunedBackfill b) {
    backfill = b;
  }

  /**
   * Whether the store answers from its verified in-memory copies, waiting up to {@code timeout}
   * ({@link FilterStore#awaitCopies}): for tests that change files under a server.
   */
  boolean awaitStoreCopies(java.time.Duration timeout) throws InterruptedException {
    return store.awaitCopies(timeout);
  }

  @Override
  public boolean txMaybe(byte[] keys, int offset) {
    try {
      return store.mightContainTx(keys, offset)
          || (pruned.isPresent() && pruned.get().maybe(keys, offset));
    } catch (FilterStoreChangedException e) {
      throw unavailable(e);
    }
  }

  @Override
  public int txMaybeBatch(byte[] keys, int count, long[] maybe) {
    try {
      int n = store.mightContainTxBatch(keys, count, maybe);
      if (pruned.isPresent()) { // a pruned block's txids may be missing from a rebuilt summary
        for (int i = 0; i < count; i++) {
          if ((maybe[i >>> 6] & 1L << i) == 0 && pruned.get().maybe(keys, 32 * i)) {
            maybe[i >>> 6] |= 1L << i;
            n++;
          }
        }
      }
      return n;
    } catch (FilterStoreChangedException e) {
      throw unavailable(e);
    }
  }

  /**
   * A store answering from its mappings (its copies not in yet) found a file changed under it: no
   * answer (503). The watcher sees the same change within a second, makes the backend not ready and
   * verifies the store again.
   */
  private static BackendUnavailableException unavailable(FilterStoreChangedException e) {
    return new BackendUnavailableException(e.getMessage(), e);
  }

  /** What the store watcher sees of this backend. */
  private final class Watched implements StoreRecovery.Served {
    @Override
    public FilterStore store() {
      return store;
    }

    @Override
    public void notReady(String reason) {
      notReady = reason;
    }

    @Override
    public void swap(FilterStore fresh) {
      CoreChainBackend.this.swap(fresh);
    }

    @Override
    public boolean wanted() {
      return open;
    }
  }

  /** Serves {@code fresh} from now on; the old store is freed after a grace period. */
  private void swap(FilterStore fresh) {
    FilterStore old;
    synchronized (this) {
      if (!open) {
        fresh.close();
        return;
      }
      old = store;
      descriptions = new FilterDescriptions(fresh);
      store = fresh;
      notReady = null;
    }
    try {
      Thread.sleep(RETIRE_GRACE_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    old.close();
  }

  @Override
  public Optional<TxAnswer> lookupTx(byte[] txid) {
    if (own.isPresent()) {
      return lookupOwn(own.get(), txid);
    }
    try {
      return index.findTx(txid).map(CoreChainBackend::answer);
    } catch (IndexReadException e) {
      if (e.getCause() instanceof DamagedBlockException) {
        // a hashed row's block bytes are damaged: the txid may well be there, so no "absent"
        throw new StoreInconsistentException(e.getMessage(), e);
      }
      throw e;
    }
  }

  /**
   * The own index's answer, confirmed by the transaction's bytes ({@link OwnTxLookup}); a damaged
   * block is an inconsistent store, never an "absent".
   */
  private Optional<TxAnswer> lookupOwn(OwnTxLookup lookup, byte[] txid) {
    try {
      Optional<TxAnswer> found = lookup.find(txid).map(CoreChainBackend::answer);
      return found.isPresent() ? found : lookupPruned(txid, false);
    } catch (NoSuchFileException e) {
      return lookupPruned(txid, true); // the node pruned the blk file under the server
    } catch (DamagedBlockException e) {
      throw new StoreInconsistentException(e.getMessage(), e);
    } catch (IOException e) {
      throw new IndexReadException(
          "own txid index lookup of "
              + io.bbfindex.ingest.encoding.HashKeys.toDisplayHex(txid)
              + " failed: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Where the fingerprints put a txid the own index did not find: in a block the node pruned. A
   * match in a block whose data the node still has is a false one (the own index, built from that
   * data, would have found the txid) unless its blk file went under the server ({@code fileGone}).
   */
  private Optional<TxAnswer> lookupPruned(byte[] txid, boolean fileGone) {
    if (pruned.isEmpty()) {
      return Optional.empty();
    }
    return pruned
        .get()
        .find(txid)
        .flatMap(hit -> index.findBlock(hit.blockHash()))
        .filter(b -> fileGone || !BlockStatus.hasData(b.status()) || b.file() < 0)
        .map(
            b ->
                new TxAnswer(
                    b.hash(),
                    b.height(),
                    b.onActiveChain() ? b.confirmations() : TxAnswer.STALE_CONFIRMATIONS,
                    TxAnswer.PRUNED,
                    0,
                    0,
                    b.onActiveChain()));
  }

  private static TxAnswer answer(TxLocation loc) {
    BlockInfo b = loc.block();
    return new TxAnswer(
        b.hash(),
        b.height(),
        // the block's own answer says -1 off the active chain (getblockheader), the tx's 0
        // (getrawtransaction)
        b.onActiveChain() ? b.confirmations() : TxAnswer.STALE_CONFIRMATIONS,
        loc.file(),
        loc.dataPos(),
        loc.txOffset(),
        b.onActiveChain());
  }

  @Override
  public boolean blockMaybe(byte[] hash) {
    try {
      // a rebuilt block-hash filter may lack the blocks a pruning node deleted: the block index,
      // in memory, still has their headers
      return store.mightContainBlock(hash, 0)
          || (pruned.isPresent() && index.findBlock(hash).isPresent());
    } catch (FilterStoreChangedException e) {
      throw unavailable(e);
    }
  }

  @Override
  public Optional<BlockAnswer> lookupBlock(byte[] hash) {
    return index.findBlock(hash).map(CoreChainBackend::answer);
  }

  static BlockAnswer answer(BlockInfo b) {
    return new BlockAnswer(
        b.hash(),
        b.height(),
        b.status(),
        b.txCount(),
        b.file(),
        b.dataPos(),
        b.version(),
        b.prevHash(),
        b.merkleRoot(),
        b.time(),
        b.bits(),
        b.nonce(),
        b.onActiveChain(),
        b.confirmations());
  }

  @Override
  public Optional<BlockData> blockData() {
    return Optional.of(blockData);
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
    return index.tipHeight();
  }

  @Override
  public double txindexLagBlocks() {
    OptionalInt txindexTip = index.txindexTipHeight();
    return txindexTip.isPresent() ? index.tipHeight() - txindexTip.getAsInt() : Double.NaN;
  }

  @Override
  public String txindexLayout() {
    return index.txindexLayout().label();
  }

  @Override
  public String txindexLocation() {
    if (index.txindexLayout() == TxIndexLayout.NONE) {
      return "none";
    }
    return index.legacyTxindex() ? "blocks/index" : "indexes/txindex";
  }

  @Override
  public String txindexSource() {
    return own.isPresent() ? "own" : "node";
  }

  @Override
  public long leveldbReads() {
    return index.leveldbReads();
  }

  @Override
  public boolean ready() {
    return open && notReady == null && prunedReason() == null;
  }

  @Override
  public String notReadyReason() {
    String why = notReady;
    String prunedWhy = prunedReason();
    return !open
        ? "the index is closed"
        : why != null ? why : prunedWhy != null ? prunedWhy : "ready";
  }

  /** "Behind the node's prune horizon", or null. */
  private @Nullable String prunedReason() {
    return pruned.isPresent() ? pruned.get().notReadyReason() : null;
  }

  @Override
  public Map<String, Object> status() {
    if (pruned.isEmpty()) {
      return ChainBackend.super.status();
    }
    Map<String, Object> m = new LinkedHashMap<>(ChainBackend.super.status());
    m.put("pruned", pruned.get().status());
    return m;
  }

  @Override
  public Map<String, DoubleSupplier> gauges() {
    return pruned.isPresent() ? pruned.get().gauges() : Map.of();
  }

  @Override
  public void close() {
    synchronized (this) {
      open = false;
    }
    watcher.interrupt();
    PrunedBackfill b = backfill;
    if (b != null) {
      b.close();
    }
    try {
      store.close();
    } finally {
      own.ifPresent(OwnTxLookup::close);
      pruned.ifPresent(PrunedHistory::close);
      try {
        index.close();
      } catch (IOException e) {
        LOG.log(Level.WARNING, "closing the index of " + index.datadir() + " failed", e);
      }
    }
  }
}
