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
              + " else the own index; default ${DEFAULT-VALUE}). Not 'own' with --follow yet.")
  String value = "auto";

  /**
   * The choice given; {@code own} is refused with {@code --follow}, whose follower does not keep
   * positions for the own index yet.
   */
  TxIndexChoice choice(boolean follow) throws UsageException {
    TxIndexChoice c;
    try {
      c = TxIndexChoice.parse(value);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage(), e);
    }
    if (follow && c == TxIndexChoice.OWN) {
      throw new UsageException(
          "--txindex own does not work with --follow yet: follow a node with -txindex=1");
    }
    return c;
  }
}
