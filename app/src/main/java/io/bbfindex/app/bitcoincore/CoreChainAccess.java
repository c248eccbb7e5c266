package io.bbfindex.app.bitcoincore;

import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.filterbuild.BuildOptions;
import io.bbfindex.ingest.filterbuild.BuildReport;
import io.bbfindex.ingest.filterbuild.ConsoleProgress;
import io.bbfindex.ingest.filterbuild.FilterBuilder;
import io.bbfindex.ingest.filterbuild.ProgressListener;
import io.bbfindex.ingest.filterbuild.StoreSalt;
import io.bbfindex.ingest.store.FilterStore;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * The commands' access to Bitcoin Core data through chain-ingest. Build progress (rate, ETA) goes
 * to standard error through chain-ingest's {@link ConsoleProgress}; the one-line messages go to
 * {@code log}.
 */
public final class CoreChainAccess implements ChainAccess {

  @Override
  public String ingest(Path datadir, Path filters, Path work, double targetFpr, PrintStream log)
      throws IOException {
    return ingest(datadir, filters, work, targetFpr, false, log);
  }

  @Override
  public ChainBackend open(Path datadir, Path filters, Path work, double targetFpr, PrintStream log)
      throws IOException {
    return open(datadir, filters, work, targetFpr, false, log);
  }

  @Override
  public String ingest(
      Path datadir, Path filters, Path work, double targetFpr, boolean unsalted, PrintStream log)
      throws IOException {
    return ingest(datadir, filters, work, new StoreChoices(targetFpr, unsalted, false), log);
  }

  @Override
  public ChainBackend open(
      Path datadir, Path filters, Path work, double targetFpr, boolean unsalted, PrintStream log)
      throws IOException {
    return open(datadir, filters, work, new StoreChoices(targetFpr, unsalted, false), log);
  }

  @Override
  public String ingest(Path datadir, Path filters, Path work, StoreChoices store, PrintStream log)
      throws IOException {
    log.println(
        "bbf-index: reading " + datadir + " (private LevelDB snapshots under " + work + ")");
    try (NodeIndex index = NodeIndex.open(datadir, work)) {
      BuildReport report =
          FilterBuilder.build(index, filters, options(filters, store), new ConsoleProgress());
      return "txindex: "
          + index.txindexDescription()
          + (index.txindexLayout().storesEveryTxid() ? "" : " (txids computed from the blk files)")
          + "\n"
          + report.describe()
          + "\nfilter store: "
          + filters
          + " (index tip "
          + index.tipHeight()
          + ")";
    }
  }

  /**
   * Opens the index and its filter store, first building or repairing whatever the store lacks (a
   * missing store, a file that fails its checksum, blocks added since the last ingest): a store is
   * never served in part or stale.
   */
  @Override
  public ChainBackend open(
      Path datadir, Path filters, Path work, StoreChoices store, PrintStream log)
      throws IOException {
    long start = System.nanoTime();
    log.println(
        "bbf-index: opening " + datadir + " (private LevelDB snapshots under " + work + ")");
    NodeIndex index = NodeIndex.open(datadir, work);
    try {
      BuildOptions options = options(filters, store);
      FilterStore opened =
          FilterBuilder.ensureBuilt(index, filters, options, new ConsoleProgress());
      // a store faulted under the server is verified again and what fails is rebuilt
      CoreChainBackend backend =
          new CoreChainBackend(
              index,
              opened,
              () -> FilterBuilder.ensureBuilt(index, filters, options, ProgressListener.NONE));
      log.println("bbf-index: txindex " + index.txindexDescription());
      log.printf(
          "bbf-index: index tip %d, %,d txids in %d filter(s) under %s, ready in %d ms%n",
          index.tipHeight(),
          opened.manifest().txKeys(),
          opened.filterCount(),
          filters,
          (System.nanoTime() - start) / 1_000_000);
      return backend;
    } catch (IOException | RuntimeException e) {
      index.close();
      throw e;
    }
  }

  /**
   * Keyed by the store's secret salt unless unsalted ({@link StoreSalt}), with per-file filters if
   * chosen.
   */
  private static BuildOptions options(Path filters, StoreChoices store) {
    return BuildOptions.defaults()
        .withTargetFpr(store.targetFpr())
        .withSalt(StoreSalt.forStore(filters, store.unsalted()))
        .withFileFilters(store.fileFilters());
  }
}
