package io.bbfindex.app.bitcoincore;

import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.pruned.PrunedHistory;
import io.bbfindex.app.pruned.PrunedNode;
import io.bbfindex.app.pruned.PrunedOptions;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.TxIndexLayout;
import io.bbfindex.ingest.filterbuild.BuildOptions;
import io.bbfindex.ingest.filterbuild.BuildReport;
import io.bbfindex.ingest.filterbuild.ConsoleProgress;
import io.bbfindex.ingest.filterbuild.FilterBuilder;
import io.bbfindex.ingest.filterbuild.ProgressListener;
import io.bbfindex.ingest.filterbuild.StoreSalt;
import io.bbfindex.ingest.filterbuild.VerifiedAhead;
import io.bbfindex.ingest.ownindex.OwnIndexStore;
import io.bbfindex.ingest.ownindex.OwnTxLookup;
import io.bbfindex.ingest.store.FilterStore;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The commands' access to Bitcoin Core data through chain-ingest. Build progress (rate, ETA) goes
 * to standard error through chain-ingest's {@link ConsoleProgress}; the one-line messages go to
 * {@code log}.
 */
public final class CoreChainAccess implements ChainAccess {

  @Override
  public String ingest(Path datadir, Path filters, Path work, StoreChoices store, PrintStream log)
      throws IOException {
    log.println(
        "bbf-index: reading " + datadir + " (private LevelDB snapshots under " + work + ")");
    // a node without a txindex (Core's default) gets the own txid index beside its filters, as
    // serve --txindex auto would build it
    try (NodeIndex index = NodeIndex.open(datadir, work, false, true)) {
      BuildReport report =
          FilterBuilder.build(index, filters, options(filters, store), new ConsoleProgress());
      String own = "";
      if (index.txindexLayout() == TxIndexLayout.NONE) {
        OwnIndexStore.open(index, filters.resolve(OwnIndexStore.FILE_NAME), work, log).close();
        own = "\nown txid index: " + filters.resolve(OwnIndexStore.FILE_NAME);
      }
      return "txindex: "
          + index.txindexDescription()
          + (index.txindexLayout().storesEveryTxid() ? "" : " (txids computed from the blk files)")
          + "\n"
          + report.describe()
          + own
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
   * never served in part or stale. With {@link TxIndexChoice#OWN} (or {@code AUTO} beside a node
   * without a txindex) lookups are answered by the own index {@code filters/own-txindex.dat}, built
   * or brought up to date first ({@link OwnIndexStore}); beside a pruning node ({@link PrunedNode})
   * the txids of every block on disk are also kept as fingerprints before the node can delete the
   * block, and with {@code --backfill-pruned} (the node then runs: its index is copied live) the
   * blocks it deleted earlier are fetched back.
   */
  @Override
  public ChainBackend open(ServeRequest request, PrintStream log) throws IOException {
    Path datadir = request.datadir();
    Path filters = request.filters();
    Path work = request.work();
    TxIndexChoice txindex = request.txindex();
    PrunedOptions pruned = request.pruned();
    long start = System.nanoTime();
    log.println(
        "bbf-index: opening " + datadir + " (private LevelDB snapshots under " + work + ")");
    // the store's checksums (1.84 GB of summary at mainnet geometry) are checked on another core
    // while the node's block index is read: ensureBuilt then checks that store against the index.
    // Its in-memory copies wait until the backend is ready: its mappings answer meanwhile.
    CompletableFuture<Void> ready = new CompletableFuture<>();
    VerifiedAhead ahead = VerifiedAhead.start(filters, FilterStore.copiesAfter(ready));
    NodeIndex index;
    try {
      index = NodeIndex.open(datadir, work, pruned.backfill(), txindex != TxIndexChoice.NODE);
    } catch (IOException | RuntimeException e) {
      ahead.close();
      throw e;
    }
    try {
      boolean own = txindex == TxIndexChoice.OWN || index.txindexLayout() == TxIndexLayout.NONE;

      BuildOptions options = options(filters, request.store());
      FilterStore opened =
          FilterBuilder.ensureBuilt(index, filters, options, new ConsoleProgress(), ahead);
      // after the store: the builder wants its directory to itself until its manifest is there
      Optional<OwnTxLookup> ownLookup = Optional.empty();
      Optional<PrunedHistory> prunedHistory = Optional.empty();
      try {
        ownLookup =
            own
                ? Optional.of(
                    OwnIndexStore.open(index, filters.resolve(OwnIndexStore.FILE_NAME), work, log))
                : Optional.empty();
        if (own) {
          prunedHistory = PrunedNode.open(index, filters, work, pruned, log);
        }
      } catch (IOException | RuntimeException e) {
        ownLookup.ifPresent(OwnTxLookup::close);
        opened.close();
        throw e;
      }
      // a store faulted under the server is verified again and what fails is rebuilt
      CoreChainBackend backend =
          new CoreChainBackend(
              index,
              opened,
              () -> FilterBuilder.ensureBuilt(index, filters, options, ProgressListener.NONE),
              ownLookup,
              prunedHistory);
      if (pruned.backfill() && prunedHistory.isPresent()) {
        backend.ownBackfill(PrunedNode.backfill(prunedHistory.get(), pruned, work, log));
      }
      log.println(
          "bbf-index: txindex "
              + index.txindexDescription()
              + (own ? "; lookups from the own txid index" : ""));
      log.printf(
          "bbf-index: index tip %d, %,d txids in %d filter(s) under %s, ready in %d ms%n",
          index.tipHeight(),
          opened.manifest().txKeys(),
          opened.filterCount(),
          filters,
          (System.nanoTime() - start) / 1_000_000);
      ready.complete(null);
      return backend;
    } catch (IOException | RuntimeException e) {
      ahead.close(); // when the build did not take the store
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
