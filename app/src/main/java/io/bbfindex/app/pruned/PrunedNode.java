package io.bbfindex.app.pruned;

import io.bbfindex.follow.node.NodeRpc;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.ownindex.FingerprintCapture;
import io.bbfindex.ingest.ownindex.FingerprintStore;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether, and how, a served node's pruned blocks are kept: the fingerprint store {@code
 * filters/own-fingerprints/} is kept when the node prunes (its configuration says so, or its block
 * index shows it has pruned), when the store already has parts, or with {@code --backfill-pruned};
 * at each start every block still on disk that no part covers is added before the node can delete
 * it.
 */
public final class PrunedNode {

  private PrunedNode() {}

  /** The pruned history of {@code index}'s node, or empty for a node that does not prune. */
  public static Optional<PrunedHistory> open(
      NodeIndex index, Path filters, Path work, PrunedOptions options, PrintStream log)
      throws IOException {
    FingerprintStore store = FingerprintStore.open(filters.resolve(FingerprintStore.DIR_NAME), log);
    boolean keep =
        options.nodePrunes() || options.backfill() || index.prunedBlockFiles() || store.parts() > 0;
    if (!keep) {
      store.close();
      return Optional.empty();
    }
    try {
      FingerprintCapture.Report r =
          FingerprintCapture.extend(
              index, store, work, Math.max(1, Runtime.getRuntime().availableProcessors()));
      log.printf(
          "bbf-index: pruning node: %,d block(s) with %,d txids added to the fingerprints in %d ms"
              + " (%d part(s), %,d blocks, %,d txids, %.2f bytes a txid; a false 'confirmed'"
              + " at most %.1e a lookup)%n",
          r.blocks(),
          r.txids(),
          r.millis(),
          store.parts(),
          store.blocks(),
          store.keys(),
          store.keys() == 0 ? 0.0 : (double) store.bytes() / store.keys(),
          store.falseConfirmedBound());
      PrunedHistory history = new PrunedHistory(store, index.blocks());
      String behind = history.notReadyReason();
      if (behind != null) {
        log.println("bbf-index: " + behind);
      }
      return Optional.of(history);
    } catch (IOException | RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /** Starts {@code --backfill-pruned} (with the options' RPC). */
  public static PrunedBackfill backfill(
      PrunedHistory history, PrunedOptions options, Path work, PrintStream log) {
    NodeRpc rpc = Objects.requireNonNull(options.rpc(), "rpc");
    return PrunedBackfill.start(history, rpc, options.blocksPerSecond(), work, log);
  }
}
