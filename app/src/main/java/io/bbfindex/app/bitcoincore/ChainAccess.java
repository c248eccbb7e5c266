package io.bbfindex.app.bitcoincore;

import io.bbfindex.app.lookup.ChainBackend;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * How the commands reach chain data: open a backend for {@code serve}, build filters for {@code
 * ingest}.
 */
public interface ChainAccess {

  /**
   * Builds (or brings up to date) the filter store of {@code datadir} in {@code filters}.
   *
   * @param log where one-line messages go (long work also reports rate and ETA)
   * @return a summary for the user
   */
  String ingest(Path datadir, Path filters, Path work, double targetFpr, PrintStream log)
      throws IOException;

  /**
   * Opens the backend over {@code datadir} and its filter store, building first whatever the store
   * lacks (missing, damaged, or behind the index).
   */
  ChainBackend open(Path datadir, Path filters, Path work, double targetFpr, PrintStream log)
      throws IOException;

  /**
   * As {@link #ingest(Path, Path, Path, double, PrintStream)}; {@code unsalted} asks for the
   * public, unkeyed bit derivation instead of the default secret per-store salt.
   */
  default String ingest(
      Path datadir, Path filters, Path work, double targetFpr, boolean unsalted, PrintStream log)
      throws IOException {
    return ingest(datadir, filters, work, targetFpr, log);
  }

  /**
   * As {@link #open(Path, Path, Path, double, PrintStream)}; {@code unsalted} as in {@link
   * #ingest(Path, Path, Path, double, boolean, PrintStream)}.
   */
  default ChainBackend open(
      Path datadir, Path filters, Path work, double targetFpr, boolean unsalted, PrintStream log)
      throws IOException {
    return open(datadir, filters, work, targetFpr, log);
  }

  /** As {@link #ingest(Path, Path, Path, double, boolean, PrintStream)}, with every choice. */
  default String ingest(Path datadir, Path filters, Path work, StoreChoices store, PrintStream log)
      throws IOException {
    return ingest(datadir, filters, work, store.targetFpr(), store.unsalted(), log);
  }

  /** As {@link #open(Path, Path, Path, double, boolean, PrintStream)}, with every choice. */
  default ChainBackend open(
      Path datadir, Path filters, Path work, StoreChoices store, PrintStream log)
      throws IOException {
    return open(datadir, filters, work, store.targetFpr(), store.unsalted(), log);
  }

  /**
   * As {@link #open(Path, Path, Path, StoreChoices, PrintStream)}, with lookups answered by the
   * index {@code txindex} chooses. An access without an own index of its own serves the node's.
   */
  default ChainBackend open(
      Path datadir,
      Path filters,
      Path work,
      StoreChoices store,
      TxIndexChoice txindex,
      PrintStream log)
      throws IOException {
    return open(datadir, filters, work, store, log);
  }

  /**
   * As {@link #open(Path, Path, Path, StoreChoices, TxIndexChoice, PrintStream)}, beside a node
   * that may prune ({@code pruned}: what is known of it, and {@code --backfill-pruned}). An access
   * without an own index of its own ignores it.
   */
  default ChainBackend open(
      Path datadir,
      Path filters,
      Path work,
      StoreChoices store,
      TxIndexChoice txindex,
      io.bbfindex.app.pruned.PrunedOptions pruned,
      PrintStream log)
      throws IOException {
    return open(datadir, filters, work, store, txindex, log);
  }
}
