package io.bbfindex.app.cli;

import io.bbfindex.app.bitcoincore.TxIndexChoice;

/**
 * {@code serve --txindex auto|node|own}: kept apart from the rest of serve's options so that it
 * moves into another option parser as one piece.
 */
final class TxIndexOption {

  static final String NAME = "txindex";

  static final String HELP =
      """
        --txindex S     what answers txid lookups: node (the node's -txindex), own (bbf-index's
                        own position index, built from the blk files into the --filters
                        directory: for a node without -txindex) or auto (default: the node's
                        txindex when its data directory has one, else the own index)
      """;

  private TxIndexOption() {}

  /**
   * The choice given (default {@code auto}); {@code own} is refused with {@code --follow}, whose
   * follower does not keep positions for the own index yet.
   */
  static TxIndexChoice parse(Options o, boolean follow) throws UsageException {
    TxIndexChoice c;
    try {
      c = TxIndexChoice.parse(o.string(NAME, "auto"));
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
