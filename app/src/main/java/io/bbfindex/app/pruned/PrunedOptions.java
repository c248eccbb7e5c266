package io.bbfindex.app.pruned;

import io.bbfindex.follow.node.NodeConf;
import io.bbfindex.follow.node.NodeRpc;
import org.jspecify.annotations.Nullable;

/**
 * How {@code serve} treats a pruning node.
 *
 * @param nodePrunes whether the node is known to prune ({@code prune=N}, N != 0, in its
 *     bitcoin.conf): fingerprints are kept from the first start, before the node deletes anything.
 *     A node that has pruned already (its block index says so) or a store that holds fingerprints
 *     keeps them regardless.
 * @param backfill {@code --backfill-pruned}: fetch the blocks pruned before bbf-index indexed them
 * @param blocksPerSecond {@code --backfill-rate}: at most this many blocks asked of peers a second
 * @param rpc the node's RPC, for the backfill (null without it)
 */
public record PrunedOptions(
    boolean nodePrunes, boolean backfill, double blocksPerSecond, @Nullable NodeRpc rpc) {

  /** {@code --backfill-rate}'s default. */
  public static final double DEFAULT_BLOCKS_PER_SECOND = 20;

  /** Nothing known of pruning, no backfill. */
  public static final PrunedOptions NONE =
      new PrunedOptions(false, false, DEFAULT_BLOCKS_PER_SECOND, null);

  public PrunedOptions {
    if (backfill && rpc == null) {
      throw new IllegalArgumentException("--backfill-pruned needs the node's RPC");
    }
  }

  /** Whether the node's configuration turns pruning on ({@code prune} other than 0). */
  public static boolean prunesPerConf(NodeConf conf, String chain) {
    return conf.get(chain, "prune").map(v -> !v.strip().equals("0")).orElse(false);
  }
}
