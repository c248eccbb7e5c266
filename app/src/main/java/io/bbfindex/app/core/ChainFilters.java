package io.bbfindex.app.core;

import io.bbfindex.app.lookup.FilterSummary;
import java.util.List;

/**
 * The membership filters that sit in front of Bitcoin Core's indexes: "no" is final, "maybe" needs
 * a confirmation. Keys are 32 bytes in internal order.
 */
interface ChainFilters extends AutoCloseable {

  boolean mightContainTx(byte[] keys, int offset);

  void mightContainTxBatch(byte[] keys, int count, boolean[] out);

  boolean mightContainBlock(byte[] keys, int offset);

  List<FilterSummary> summaries();

  @Override
  void close();
}
