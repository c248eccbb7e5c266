package io.bbfindex.app.lookup;

import static io.bbfindex.filters.Arguments.requireArgument;

import io.bbfindex.ingest.encoding.HashKeys;

/**
 * Where Bitcoin Core stored a transaction, as confirmed by its txindex.
 *
 * @param blockHash internal byte order, 32 bytes
 * @param height height of the containing block
 * @param confirmations tip height - height + 1 on the active chain; -1 for a stale block, as Core's
 *     getblockheader reports
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
  }

  /** {@code confirmed} or {@code stale}, as the API reports it. */
  public ChainStatus status() {
    return ChainStatus.of(onActiveChain);
  }
}
