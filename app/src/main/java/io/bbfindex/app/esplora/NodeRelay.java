package io.bbfindex.app.esplora;

import java.io.IOException;
import java.util.List;

/**
 * The followed node's side of the esplora routes that only a node can answer: its mempool's txids
 * and, when the operator allows it, relaying a transaction.
 */
public interface NodeRelay {
  /** The node's {@code getrawmempool}. */
  List<String> mempoolTxids() throws IOException;

  /**
   * The node's {@code sendrawtransaction}: the txid on success.
   *
   * @throws IllegalArgumentException when the node refuses the transaction (its message)
   */
  String sendRawTransaction(String hex) throws IOException;

  /** Whether {@code POST tx} may relay (serve --esplora-relay). */
  boolean relayEnabled();
}
