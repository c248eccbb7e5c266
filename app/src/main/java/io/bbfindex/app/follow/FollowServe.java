package io.bbfindex.app.follow;

import io.bbfindex.app.bitcoincore.CoreChainBackend;
import io.bbfindex.app.bitcoincore.TxIndexChoice;
import io.bbfindex.app.esplora.NodeRelay;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.workdir.NodeDirectories;
import io.bbfindex.app.workdir.SnapshotDirectories;
import io.bbfindex.follow.FollowConfig;
import io.bbfindex.follow.FollowState;
import io.bbfindex.follow.FollowStats;
import io.bbfindex.follow.Follower;
import io.bbfindex.follow.events.FollowEvents;
import io.bbfindex.follow.node.NodeAccess;
import io.bbfindex.follow.node.NodeRpc;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.TxIndexLayout;
import io.bbfindex.ingest.filterbuild.BuildOptions;
import io.bbfindex.ingest.filterbuild.ConsoleProgress;
import io.bbfindex.ingest.filterbuild.FilterBuilder;
import io.bbfindex.ingest.filterbuild.StoreSalt;
import io.bbfindex.ingest.ownindex.OwnIndexStore;
import io.bbfindex.ingest.store.FilterStore;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Opens the backend of {@code serve --follow}: a private snapshot of the running node's indexes
 * (never its own directories, never its locks) with the filters built or extended over it, and a
 * {@link Follower} from the snapshot's tip to the node's.
 */
public final class FollowServe {
  /** Polling period without ZMQ, and the health check period with it. */
  static final Duration POLL = Duration.ofMillis(500);

  /** How often the tip layer's depth is compared with --refresh-blocks. */
  static final Duration REFRESH_CHECK = Duration.ofSeconds(10);

  private FollowServe() {}

  /** As the full overload, with {@code --txindex auto}. */
  public static ChainBackend open(
      NodeDirectories node,
      Path filters,
      Path work,
      double targetFpr,
      FollowOptions options,
      PrintStream log)
      throws IOException {
    return open(node, filters, work, targetFpr, options, TxIndexChoice.AUTO, log);
  }

  /**
   * @param txindex what answers the history's txid lookups: with the own index (a node without
   *     -txindex, or {@code own}) it is brought up to the snapshot's blocks at every refresh, a
   *     part file for the new blocks ({@link OwnIndexStore}), never a full rebuild
   * @throws IllegalArgumentException if the options are inconsistent (the message says which)
   * @throws IOException if the history cannot be opened or built
   */
  public static ChainBackend open(
      NodeDirectories node,
      Path filters,
      Path work,
      double targetFpr,
      FollowOptions options,
      TxIndexChoice txindex,
      PrintStream log)
      throws IOException {
    if ((options.user() == null) != (options.password() == null)) {
      throw new IllegalArgumentException("--rpc-user and --rpc-password go together");
    }
    Path datadir = node.netDir();
    String network = node.chain();
    NodeAccess access = access(node, options);
    NodeRpc rpc = nodeRpc(access);
    URI rpcUri = rpc.endpoint();
    Optional<String> nodeGenesis = NodeCheck.contact(rpc, access, network, log);
    log.println(
        "bbf-index: snapshot of the running node's indexes in "
            + datadir
            + " (under "
            + work
            + ")");
    // A serve killed earlier (kill -9) left its snapshots behind: only its own claimed
    // directories, and only those no live process holds, are removed.
    for (Path stale : SnapshotDirectories.removeStale(work)) {
      log.println("bbf-index: removed the stale snapshot directory " + stale);
    }
    SnapshotDirectories.Claim claim = SnapshotDirectories.claim(work);
    NodeIndex index;
    try {
      index = NodeIndex.open(datadir, claim.dir(), true, txindex != TxIndexChoice.NODE);
    } catch (IOException | RuntimeException e) {
      claim.close();
      throw e;
    }
    ChainBackend history = null;
    try {
      NodeCheck.sameGenesis(index, nodeGenesis, rpcUri, datadir);
      if (index.prunedBlockFiles()) {
        // The fingerprints that keep a pruned block's txids answerable are captured at a start
        // without --follow (PrunedNode); the follower does not capture them yet, so a block the
        // node deleted while followed would turn its txids into false 404s: refused, not served.
        throw new IllegalArgumentException(
            "--follow beside a pruning node is not supported yet (its block index says it has"
                + " pruned block files): run serve without --follow, restarted regularly (each"
                + " start keeps what the node is about to delete), or follow a node that keeps its"
                + " blocks");
      }
      BuildOptions build =
          BuildOptions.defaults()
              .withTargetFpr(targetFpr)
              .withSalt(StoreSalt.forStore(filters, false));
      FilterStore store = FilterBuilder.ensureBuilt(index, filters, build, new ConsoleProgress());
      boolean own = txindex == TxIndexChoice.OWN || index.txindexLayout() == TxIndexLayout.NONE;
      history = history(index, store, filters, claim.dir(), own, log);
      SnapshotBase base = SnapshotBase.of(index, own);
      FollowConfig config =
          new FollowConfig(
              rpc, access.zmq(), datadir.resolve("blocks"), base.hash(), base.height(), POLL);
      FollowStats stats = new FollowStats();
      Follower follower = Follower.start(config, stats);
      log.printf(
          "bbf-index: snapshot complete to %d (block index tip %d); following %s (%s, from %s)%n",
          base.height(), index.tipHeight(), rpcUri, network, access.from());
      FollowingBackend backend = new FollowingBackend(history, follower, FollowEvents.start(rpc));
      backend.ownWorkDir(claim);
      if (options.refreshBlocks() > 0) {
        HistoryRefresh refresh =
            new HistoryRefresh(
                backend,
                datadir,
                filters,
                claim.dir(),
                build,
                config,
                stats,
                options.refreshBlocks(),
                own,
                log);
        backend.ownRefresh(refresh);
        refresh.start(REFRESH_CHECK);
      }
      return backend;
    } catch (IOException | RuntimeException e) {
      if (history != null) {
        history.close();
      } else {
        index.close();
      }
      claim.close();
      throw e;
    }
  }

  /**
   * The history backend over a snapshot: with {@code own}, lookups from the own index, brought up
   * to the snapshot's blocks first (incrementally, {@link OwnIndexStore}).
   */
  static CoreChainBackend history(
      NodeIndex index, FilterStore store, Path filters, Path work, boolean own, PrintStream log)
      throws IOException {
    if (!own) {
      return new CoreChainBackend(index, store);
    }
    try {
      return CoreChainBackend.withOwnIndex(
          index,
          store,
          OwnIndexStore.open(index, filters.resolve(OwnIndexStore.FILE_NAME), work, log));
    } catch (IOException | RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /**
   * The esplora routes' access to the node of {@code serve --follow}: its mempool, and {@code
   * sendrawtransaction} when {@code relay} ({@code --esplora-relay}).
   */
  public static NodeRelay relay(NodeDirectories node, FollowOptions options, boolean relay) {
    return new NodeRpcRelay(nodeRpc(access(node, options)), relay);
  }

  /** How to reach the node: the options first, then its bitcoin.conf, then Core's defaults. */
  static NodeAccess access(NodeDirectories node, FollowOptions options) {
    return NodeAccess.resolve(
        node.netDir(),
        node.chain(),
        node.conf(),
        new NodeAccess.Flags(
            options.rpc(), options.cookie(), options.user(), options.password(), options.zmq()));
  }

  private static NodeRpc nodeRpc(NodeAccess access) {
    return new NodeRpc(access.rpc(), access.credentials(), Duration.ofSeconds(30));
  }

  /**
   * Waits (at most {@code timeout}) for the first catch-up, so that the first answers are current.
   */
  public static @Nullable FollowState awaitFollowing(ChainBackend backend, Duration timeout)
      throws InterruptedException {
    if (!(backend instanceof FollowingBackend f)) {
      return null;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    while (f.follower().status().state() != FollowState.FOLLOWING && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    return f.follower().status().state();
  }
}
