package io.bbfindex.ingest.txindex;

/**
 * Implemented by a txid consumer that needs the txids of some block files only (an incremental
 * filter build): {@link BlockDataTxSource} then reads and hashes only those files and reports the
 * others by their transaction count from the block index.
 */
public interface BlockFileSelection {

  /** Whether the txids of blk{file}.dat are needed. */
  boolean wantsTxids(int file);

  /** Accounts for {@code txCount} transactions of a file whose txids are not needed. */
  void skipFile(int file, long txCount);
}
