package io.bbfindex.ingest.records;

import io.bbfindex.ingest.encoding.HashKeys;
import java.util.Arrays;

/**
 * Where Bitcoin Core stored a transaction, as its txindex says, and the block at that place.
 *
 * @param txid 32 bytes, internal order
 * @param file blk file number
 * @param dataPos offset of the containing block's header in blk{file}.dat
 * @param txOffset offset of the transaction after the 80-byte header (includes the tx-count
 *     CompactSize), so the transaction starts at {@link #txFileOffset()}
 * @param block the block whose (file, dataPos) equals this location's; it may be stale (txindex
 *     keeps rows of disconnected blocks), see {@link BlockInfo#onActiveChain()}
 */
public record TxLocation(byte[] txid, int file, long dataPos, long txOffset, BlockInfo block) {

  /** Absolute offset of the transaction's first byte in blk{file}.dat. */
  public long txFileOffset() {
    return dataPos + 80 + txOffset;
  }

  /** The txid as explorers show it. */
  public String txidHex() {
    return HashKeys.toDisplayHex(txid);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TxLocation t
        && Arrays.equals(txid, t.txid)
        && file == t.file
        && dataPos == t.dataPos
        && txOffset == t.txOffset
        && block.equals(t.block);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(txid);
  }

  @Override
  public String toString() {
    return "TxLocation["
        + txidHex()
        + " blk"
        + file
        + " pos="
        + dataPos
        + " txOffset="
        + txOffset
        + " in "
        + block
        + "]";
  }
}
