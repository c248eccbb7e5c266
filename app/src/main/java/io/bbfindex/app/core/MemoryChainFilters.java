package io.bbfindex.app.core;

import io.bbfindex.app.lookup.FilterSummary;
import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.ingest.BlockInfo;
import io.bbfindex.ingest.NodeIndex;
import java.util.List;

/**
 * Filters built in memory from an open {@link NodeIndex}: one BBF over every txindex txid and one
 * over every block hash. Nothing is persisted, so each start rescans the txindex; fine for the
 * small data directories of tests and demos.
 */
final class MemoryChainFilters implements ChainFilters {
  private final BlockedBloomFilter txs;
  private final BlockedBloomFilter blocks;

  private MemoryChainFilters(BlockedBloomFilter txs, BlockedBloomFilter blocks) {
    this.txs = txs;
    this.blocks = blocks;
  }

  static MemoryChainFilters build(NodeIndex index, double targetFpr, long salt) {
    long[] n = new long[1];
    index.forEachTx((txid, file, pos, off) -> n[0]++);
    BlockedBloomFilter txs = BlockedBloomFilter.forKeys(Math.max(1, n[0]), targetFpr, salt);
    BlockedBloomFilter blocks = null;
    try {
      index.forEachTx((txid, file, pos, off) -> txs.add(txid, 0));
      blocks = BlockedBloomFilter.forKeys(Math.max(1, index.blocks().size()), targetFpr, salt);
      for (BlockInfo b : index.blocks()) {
        blocks.add(b.hash(), 0);
      }
      return new MemoryChainFilters(txs, blocks);
    } catch (RuntimeException e) {
      txs.close();
      if (blocks != null) {
        blocks.close();
      }
      throw e;
    }
  }

  @Override
  public boolean mightContainTx(byte[] keys, int offset) {
    return txs.mightContain(keys, offset);
  }

  @Override
  public void mightContainTxBatch(byte[] keys, int count, boolean[] out) {
    txs.mightContainBatch(keys, count, out);
  }

  @Override
  public boolean mightContainBlock(byte[] keys, int offset) {
    return blocks.mightContain(keys, offset);
  }

  @Override
  public List<FilterSummary> summaries() {
    return List.of(summary("tx-summary", "tx-summary", txs), summary("blocks", "block", blocks));
  }

  private static FilterSummary summary(String name, String kind, BlockedBloomFilter f) {
    return new FilterSummary(name, kind, -1, f.count(), f.bitSize(), f.geometry().k(), f.geometry().wordBits(),
        f.fillRatio(), f.modelledFpr());
  }

  @Override
  public void close() {
    txs.close();
    blocks.close();
  }
}
