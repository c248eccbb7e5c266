package io.bbfindex.ingest.records;

import java.util.Arrays;

/**
 * Receives every txindex {@code 't'} record of a {@link TxIndexScan} (as {@code
 * NodeIndex.forEachTx} runs it).
 */
@FunctionalInterface
public interface TxRecordConsumer {

  /**
   * One record.
   *
   * @param txid the 32-byte txid in internal order. The array is REUSED for the next record: copy
   *     it if you keep it.
   * @param file the blk file number
   * @param dataPos offset of the block's header in that file
   * @param txOffset offset of the transaction counted from the end of the 80-byte header
   */
  void accept(byte[] txid, int file, long dataPos, long txOffset);

  /**
   * One record whose txid is {@code txids[offset .. offset + 32)} of a larger array, as a source
   * that computes many txids at once holds them ({@code BlockDataTxSource}). By default copied to
   * an array of its own for {@link #accept(byte[], int, long, long)}; a consumer that reads the
   * txid in place overrides this and saves a copy per record on the ingest's single inserting
   * thread.
   */
  default void accept(byte[] txids, int offset, int file, long dataPos, long txOffset) {
    accept(Arrays.copyOfRange(txids, offset, offset + 32), file, dataPos, txOffset);
  }
}
