package io.bbfindex.ingest.records;

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
}
