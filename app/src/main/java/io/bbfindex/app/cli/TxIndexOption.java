package io.bbfindex.app.cli;

import io.bbfindex.app.bitcoincore.TxIndexChoice;
import picocli.CommandLine.Option;

/** {@code serve --txindex auto|node|own}: which index answers txid lookups. */
final class TxIndexOption {

  @Option(
      names = "--txindex",
      paramLabel = "S",
      description =
          "What answers txid lookups: node (the node's -txindex), own (bbf-index's own position"
              + " index, built from the blk files into the --filters directory: for a node"
              + " without -txindex) or auto (the node's txindex when its data directory has one,"
              + " else the own index; default ${DEFAULT-VALUE}).")
  String value = "auto";

  /** The choice given. */
  TxIndexChoice choice() throws UsageException {
    TxIndexChoice c;
    try {
      c = TxIndexChoice.parse(value);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage(), e);
    }
    return c;
  }
}
