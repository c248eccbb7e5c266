package io.bbfindex.app.core;

import io.bbfindex.app.lookup.BlockAnswer;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.lookup.FilterSummary;
import io.bbfindex.app.lookup.HashKeys;
import io.bbfindex.app.lookup.TxAnswer;
import io.bbfindex.ingest.BlockInfo;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.TxLocation;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The production backend: filters in front, Bitcoin Core's own indexes behind them (chain-ingest's
 * {@link NodeIndex} over private snapshots of the node's LevelDBs).
 *
 * <p>The genesis coinbase is a special case on both sides: Core never writes it to the txindex, so
 * no filter built from the txindex holds it, yet it is a real transaction of block 0 that {@link
 * NodeIndex#findTx} answers from the block index. The filter probe therefore also says "maybe" for
 * that one key (block 0's merkle root, which is its txid on every network).
 */
public final class CoreChainBackend implements ChainBackend {
  private static final System.Logger LOG = System.getLogger(CoreChainBackend.class.getName());

  private final NodeIndex index;
  private final ChainFilters filters;
  private final List<FilterSummary> summaries;
  /** The genesis coinbase txid (internal order), or null when block 0 has no data on disk. */
  private final byte[] genesisCoinbase;
  private volatile boolean open = true;

  CoreChainBackend(NodeIndex index, ChainFilters filters) {
    this.index = Objects.requireNonNull(index, "index");
    this.filters = Objects.requireNonNull(filters, "filters");
    this.summaries = List.copyOf(filters.summaries());
    this.genesisCoinbase = index.activeBlockAt(0)
        .filter(g -> g.dataPos() >= 0)
        .map(BlockInfo::merkleRoot)
        .orElse(null);
  }

  /** Opens the index and builds its filters in memory (no filter store). */
  public static CoreChainBackend withMemoryFilters(NodeIndex index, double targetFpr) {
    return new CoreChainBackend(index, MemoryChainFilters.build(index, targetFpr, 0));
  }

  public NodeIndex index() {
    return index;
  }

  @Override
  public boolean txMaybe(byte[] keys, int offset) {
    return filters.mightContainTx(keys, offset) || isGenesisCoinbase(keys, offset);
  }

  @Override
  public void txMaybeBatch(byte[] keys, int count, boolean[] out) {
    filters.mightContainTxBatch(keys, count, out);
    if (genesisCoinbase != null) {
      for (int i = 0; i < count; i++) {
        out[i] |= isGenesisCoinbase(keys, i * HashKeys.KEY_BYTES);
      }
    }
  }

  private boolean isGenesisCoinbase(byte[] keys, int offset) {
    return genesisCoinbase != null
        && Arrays.equals(keys, offset, offset + HashKeys.KEY_BYTES, genesisCoinbase, 0, HashKeys.KEY_BYTES);
  }

  @Override
  public Optional<TxAnswer> lookupTx(byte[] txid) {
    return index.findTx(txid).map(CoreChainBackend::answer);
  }

  private static TxAnswer answer(TxLocation loc) {
    BlockInfo b = loc.block();
    return new TxAnswer(b.hash(), b.height(), b.confirmations(), loc.file(), loc.dataPos(), loc.txOffset(), b.onActiveChain());
  }

  @Override
  public boolean blockMaybe(byte[] hash) {
    return filters.mightContainBlock(hash, 0);
  }

  @Override
  public Optional<BlockAnswer> lookupBlock(byte[] hash) {
    return index.findBlock(hash).map(b -> new BlockAnswer(b.hash(), b.height(), b.status(), b.txCount(), b.file(),
        b.dataPos(), b.version(), b.prevHash(), b.merkleRoot(), b.time(), b.bits(), b.nonce(), b.onActiveChain(),
        b.confirmations()));
  }

  @Override
  public List<FilterSummary> filters() {
    return summaries;
  }

  @Override
  public int tipHeight() {
    return index.tipHeight();
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
      filters.close();
    } finally {
      try {
        index.close();
      } catch (IOException e) {
        LOG.log(Level.WARNING, "closing the index of " + index.datadir() + " failed", e);
      }
    }
  }
}
