package io.bbfindex.follow.layer;

import io.bbfindex.ingest.encoding.Hash32;
import org.jspecify.annotations.Nullable;

/** What the follower knows of a txid beyond the history snapshot. */
public sealed interface TipAnswer {

  /**
   * In a block of the active chain after the snapshot.
   *
   * @param location where the node stored the block, or {@code null} when its files are not
   *     readable here
   * @param txOffset the tx's offset after the block header (valid with a location or without)
   * @param confirmations served tip height - height + 1
   */
  record Confirmed(
      Hash32 blockHash,
      int height,
      int confirmations,
      @Nullable BlockPosition location,
      long txOffset)
      implements TipAnswer {}

  /** In the node's mempool. */
  record InMempool() implements TipAnswer {}

  /** Only in a block that a reorg disconnected (Core's txindex keeps such rows). */
  record Stale(Hash32 blockHash, int height) implements TipAnswer {
    /**
     * 0, as Core's {@code getrawtransaction <txid> 1} reports for a tx whose block is off the
     * active chain (its {@code getblockheader} says -1 for the block itself).
     */
    public int confirmations() {
      return 0;
    }
  }
}
