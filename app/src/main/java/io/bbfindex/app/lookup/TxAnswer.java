package io.bbfindex.app.lookup;

import static io.bbfindex.filters.Arguments.requireArgument;

import io.bbfindex.ingest.encoding.HashKeys;

/**
 * Where Bitcoin Core stored a transaction, as confirmed by its txindex.
 *
 * @param blockHash internal byte order, 32 bytes
 * @param height height of the containing block
 * @param confirmations tip height - height + 1 on the active chain; {@link #STALE_CONFIRMATIONS}
 *     (0) for a tx only in a stale block, as Core's {@code getrawtransaction <txid> 1} reports it
 *     (a block's own answer keeps getblockheader's -1, see {@link BlockAnswer})
 * @param file the {@code blk?????.dat} number
 * @param dataPos byte offset of the block header in that file
 * @param txOffset offset of the transaction after the 80-byte header
 * @param onActiveChain whether the containing block is on the active chain (txindex keeps rows of
 *     blocks that a reorg disconnected, so a hit can be stale)
 */
public record TxAnswer(
    byte[] blockHash,
    int height,
    int confirmations,
    int file,
    long dataPos,
    long txOffset,
    boolean onActiveChain) {

  public TxAnswer {
    requireArgument(
        blockHash.length == HashKeys.KEY_BYTES, "blockHash must be 32 bytes", blockHash.length);
    requireArgument(
        onActiveChain || confirmations == STALE_CONFIRMATIONS,
        "a tx off the active chain (stale or in the mempool) has 0 confirmations",
        confirmations);
  }

  /**
   * Confirmations of a tx found only in a block off the active chain: Core's {@code
   * getrawtransaction <txid> 1} reports 0 for it (getblockheader says -1 for the block itself).
   */
  public static final int STALE_CONFIRMATIONS = 0;

  /** Height of {@link #mempool()} answers: in no block yet. */
  public static final int NO_HEIGHT = -1;

  /** File number of an answer whose block position is unknown (a node on another host). */
  public static final int NO_LOCATION = -1;

  /**
   * File number of an answer whose block the node has pruned: the index kept where the transaction
   * was confirmed (its txid's fingerprint, {@code io.bbfindex.ingest.ownindex.FingerprintStore}),
   * but its bytes are gone; the byte routes answer 410 {@code block_pruned}.
   */
  public static final int PRUNED = -2;

  /** A transaction in the followed node's mempool: no block, no location. */
  public static TxAnswer mempool() {
    return new TxAnswer(new byte[HashKeys.KEY_BYTES], NO_HEIGHT, 0, NO_LOCATION, 0, 0, false);
  }

  /** {@code confirmed}, {@code stale} or {@code mempool}, as the API reports it. */
  public ChainStatus status() {
    return height == NO_HEIGHT ? ChainStatus.MEMPOOL : ChainStatus.of(onActiveChain);
  }

  /** Whether file, dataPos and txOffset are known. */
  public boolean hasLocation() {
    return file >= 0;
  }

  /** Whether the transaction's block was pruned by the node ({@link #PRUNED}). */
  public boolean blockPruned() {
    return file == PRUNED;
  }
}
