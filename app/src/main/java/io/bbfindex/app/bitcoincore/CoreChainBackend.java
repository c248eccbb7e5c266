package io.bbfindex.app.bitcoincore;

import io.bbfindex.app.lookup.BlockAnswer;
import io.bbfindex.app.lookup.BlockData;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.lookup.FilterSummary;
import io.bbfindex.app.lookup.TxAnswer;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.TxLocation;
import io.bbfindex.ingest.store.FilterStore;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The production backend: chain-ingest's {@link FilterStore} in front (the summary filter over
 * every txid, one cache line per probe, and the block-hash filter), Bitcoin Core's own indexes
 * behind it ({@link NodeIndex} over private snapshots of the node's LevelDBs).
 *
 * <p>The genesis coinbase, which Core never writes to its txindex, is in the summary filter (the
 * builder adds it) and {@link NodeIndex#findTx} answers it from the block index, so it needs no
 * special case here.
 */
public final class CoreChainBackend implements ChainBackend {
  private static final System.Logger LOG = System.getLogger(CoreChainBackend.class.getName());

  private final NodeIndex index;
  private final FilterStore store;
  private final FilterDescriptions descriptions;
  private final BlockData blockData;
  private volatile boolean open = true;

  /** Takes ownership of both: {@link #close()} closes them. */
  public CoreChainBackend(NodeIndex index, FilterStore store) {
    this.index = Objects.requireNonNull(index, "index");
    this.store = Objects.requireNonNull(store, "store");
    this.descriptions = new FilterDescriptions(store);
    this.blockData = new CoreBlockData(index);
  }

  public NodeIndex index() {
    return index;
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
    return index.findTx(txid).map(CoreChainBackend::answer);
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
    return store.mightContainBlock(hash, 0);
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
    return index.legacyTxindex() ? "blocks/index" : "indexes/txindex";
  }

  @Override
  public long leveldbReads() {
    return index.leveldbReads();
  }

  @Override
  public boolean ready() {
    return open;
  }

  @Override
  public void close() {
    open = false;
    try {
      store.close();
    } finally {
      try {
        index.close();
      } catch (IOException e) {
        LOG.log(Level.WARNING, "closing the index of " + index.datadir() + " failed", e);
      }
    }
  }
}
