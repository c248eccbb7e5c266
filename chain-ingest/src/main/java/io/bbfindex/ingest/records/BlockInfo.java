package io.bbfindex.ingest.records;

import io.bbfindex.ingest.encoding.HashKeys;
import io.bbfindex.ingest.encoding.LittleEndian;
import java.util.Arrays;

/**
 * One block known to the node's block index ({@code 'b'} record), with its place relative to the
 * active chain. Hashes are 32 bytes in internal order; arrays are shared, do not modify them.
 *
 * @param hash block hash (SHA-256d of {@code header}, internal order)
 * @param status Core's nStatus bits (see {@link io.bbfindex.ingest.records.BlockStatus})
 * @param txCount nTx (0 for header-only entries)
 * @param file blk file number, {@code -1} if the block has neither data nor undo on disk
 * @param dataPos offset of the header in blk{file}.dat, {@code -1} without data
 *     (pruned/header-only)
 * @param undoPos offset in rev{file}.dat, {@code -1} without undo data
 * @param header the 80-byte block header
 * @param onActiveChain whether the block is on the chain with the most work
 * @param confirmations {@code tipHeight - height + 1} on the active chain; {@code -1} for a block
 *     not on it, as Core's getblockheader reports
 */
public record BlockInfo(
    byte[] hash,
    int height,
    int status,
    int txCount,
    int file,
    long dataPos,
    long undoPos,
    byte[] header,
    boolean onActiveChain,
    int confirmations) {

  public int version() {
    return LittleEndian.int32(header, 0);
  }

  /** Previous block's hash (internal order). */
  public byte[] prevHash() {
    return Arrays.copyOfRange(header, 4, 36);
  }

  /** Merkle root (internal order); for a one-transaction block, that transaction's txid. */
  public byte[] merkleRoot() {
    return Arrays.copyOfRange(header, 36, 68);
  }

  /** Block time, seconds since the epoch (uint32). */
  public long time() {
    return LittleEndian.uint32(header, 68);
  }

  /** Compact target (uint32). */
  public long bits() {
    return LittleEndian.uint32(header, 72);
  }

  public long nonce() {
    return LittleEndian.uint32(header, 76);
  }

  /** The hash as explorers show it (byte-reversed hex). */
  public String hashHex() {
    return HashKeys.toDisplayHex(hash);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BlockInfo b
        && Arrays.equals(hash, b.hash)
        && height == b.height
        && status == b.status
        && txCount == b.txCount
        && file == b.file
        && dataPos == b.dataPos
        && undoPos == b.undoPos
        && Arrays.equals(header, b.header)
        && onActiveChain == b.onActiveChain
        && confirmations == b.confirmations;
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(hash);
  }

  @Override
  public String toString() {
    return "BlockInfo["
        + hashHex()
        + " height="
        + height
        + " status="
        + status
        + " nTx="
        + txCount
        + " file="
        + file
        + " dataPos="
        + dataPos
        + (onActiveChain ? " active, confirmations=" + confirmations : " stale")
        + "]";
  }
}
