package io.bbfindex.eth;

import java.util.List;
import java.util.Objects;

/**
 * One block as the index needs it: number, hash, parent hash and its transaction hashes in block
 * order (a transaction's position is its index).
 */
public record BlockTxs(long number, TxHash hash, TxHash parentHash, List<TxHash> txs) {
  public BlockTxs {
    Objects.requireNonNull(hash, "hash");
    Objects.requireNonNull(parentHash, "parentHash");
    txs = List.copyOf(txs);
  }
}
