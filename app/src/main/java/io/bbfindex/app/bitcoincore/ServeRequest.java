package io.bbfindex.app.bitcoincore;

import io.bbfindex.app.pruned.PrunedOptions;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What {@code serve} asks of a {@link ChainAccess}: the node's data directory, where the filter
 * store and the scratch snapshots go, the user's store choices, which index answers lookups, and
 * what is known of the node's pruning. One object, so that a feature adds a field here rather than
 * another overload to every access.
 *
 * @param datadir the node's data directory (read, never written)
 * @param filters the filter store's directory
 * @param work scratch space for the private LevelDB snapshots
 * @param store the choices about the store ({@code --fpr}, {@code --unsalted}, {@code
 *     --file-filters})
 * @param txindex which index answers txid lookups ({@code --txindex})
 * @param pruned what is known of the node's pruning, and {@code --backfill-pruned}
 */
public record ServeRequest(
    Path datadir,
    Path filters,
    Path work,
    StoreChoices store,
    TxIndexChoice txindex,
    PrunedOptions pruned) {

  public ServeRequest {
    Objects.requireNonNull(datadir, "datadir");
    Objects.requireNonNull(filters, "filters");
    Objects.requireNonNull(work, "work");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(txindex, "txindex");
    Objects.requireNonNull(pruned, "pruned");
  }

  /**
   * A salted store at {@code targetFpr} without per-file filters, lookups from the node's txindex,
   * nothing known of pruning.
   */
  public static ServeRequest of(Path datadir, Path filters, Path work, double targetFpr) {
    return new ServeRequest(
        datadir,
        filters,
        work,
        new StoreChoices(targetFpr, false, false),
        TxIndexChoice.NODE,
        PrunedOptions.NONE);
  }

  public ServeRequest withStore(StoreChoices s) {
    return new ServeRequest(datadir, filters, work, s, txindex, pruned);
  }

  public ServeRequest withTxIndex(TxIndexChoice t) {
    return new ServeRequest(datadir, filters, work, store, t, pruned);
  }

  public ServeRequest withPruned(PrunedOptions p) {
    return new ServeRequest(datadir, filters, work, store, txindex, p);
  }
}
