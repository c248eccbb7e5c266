package io.bbfindex.ingest.filterbuild;

import io.bbfindex.ingest.records.TxRecordConsumer;

/**
 * A txindex that can be scanned by ranges of the txid's first byte ({@code NodeIndex::forEachTx},
 * {@code TxIndexOnly::forEachTx}); concurrent calls on different ranges must be safe.
 */
@FunctionalInterface
public interface TxRangeSource {

  /**
   * Calls {@code consumer} for every row whose txid's first byte is in {@code [from, to)}, 0..256.
   */
  void forEachTx(int fromFirstByte, int toFirstByte, TxRecordConsumer consumer);
}
