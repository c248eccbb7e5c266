package io.bbfindex.app.bitcoincore;

import java.util.Locale;

/**
 * Which index answers txid lookups ({@code serve --txindex}): the node's own txindex, bbf-index's
 * own position index built from the blk files ({@code io.bbfindex.ingest.ownindex}), or {@code
 * auto}: the node's when its data directory has one, else the own index. Core runs without a
 * txindex by default, and a pruned node cannot have one.
 */
public enum TxIndexChoice {
  AUTO,
  NODE,
  OWN;

  /** As typed on the command line: {@code auto}, {@code node}, {@code own}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The choice named {@code value} (any case).
   *
   * @throws IllegalArgumentException naming the accepted values
   */
  public static TxIndexChoice parse(String value) {
    for (TxIndexChoice c : values()) {
      if (c.label().equalsIgnoreCase(value.strip())) {
        return c;
      }
    }
    throw new IllegalArgumentException("--txindex must be auto, node or own: " + value);
  }
}
