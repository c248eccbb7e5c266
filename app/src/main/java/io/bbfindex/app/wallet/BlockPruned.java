package io.bbfindex.app.wallet;

import io.bbfindex.ingest.encoding.HashKeys;

/**
 * The refusal of a byte route (raw transaction, hex, merkle proof, esplora's) whose block the node
 * has pruned: 410 Gone, code {@code block_pruned}, naming the block. Not a 404 (the transaction is
 * known, and {@code GET /v1/tx/{txid}} still answers where it was confirmed) and not a 500 (nothing
 * is damaged): the node deleted the bytes, as {@code -prune} lets it.
 */
public final class BlockPruned {

  /** HTTP 410 Gone. */
  public static final int STATUS = 410;

  /** The error code. */
  public static final String CODE = "block_pruned";

  private BlockPruned() {}

  /** As {@link #of(byte[], int)}, for a blk file that went while the server ran. */
  public static WalletException of(byte[] hash, int height, Exception cause) {
    WalletException e = of(hash, height);
    e.initCause(cause);
    return e;
  }

  /** The refusal for block {@code hash} (internal order) at {@code height}. */
  public static WalletException of(byte[] hash, int height) {
    return new WalletException(
        STATUS,
        CODE,
        "block "
            + HashKeys.toDisplayHex(hash)
            + " (height "
            + height
            + ") was pruned by the node: its bytes are gone; the transaction's block and height"
            + " are still answered by GET /v1/tx/{txid}");
  }
}
