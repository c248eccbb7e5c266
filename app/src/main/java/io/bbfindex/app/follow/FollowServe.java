package io.bbfindex.app.follow;

import io.bbfindex.app.bitcoincore.CoreChainBackend;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.follow.FollowConfig;
import io.bbfindex.follow.FollowState;
import io.bbfindex.follow.FollowStats;
import io.bbfindex.follow.Follower;
import io.bbfindex.follow.node.NodeRpc;
import io.bbfindex.follow.node.RpcCredentials;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.build.BuildOptions;
import io.bbfindex.ingest.build.ConsoleProgress;
import io.bbfindex.ingest.build.FilterBuilder;
import io.bbfindex.ingest.build.StoreSalt;
import io.bbfindex.ingest.store.FilterStore;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;

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

  /**
   * @throws IllegalArgumentException if the options are inconsistent (the message says which)
   * @throws IOException if the history cannot be opened or built
   */
  public static ChainBackend open(
      Path datadir,
      Path filters,
      Path work,
      double targetFpr,
      FollowOptions options,
      PrintStream log)
      throws IOException {
    if ((options.user() == null) != (options.password() == null)) {
      throw new IllegalArgumentException("--rpc-user and --rpc-password go together");
    }
    String network = networkOf(datadir);
    URI rpcUri =
        URI.create(
            options.rpc() != null
                ? withSlash(options.rpc())
                : "http://127.0.0.1:" + NodeRpc.defaultPort(network) + "/");
    RpcCredentials credentials =
        options.user() != null
            ? new RpcCredentials.UserPassword(options.user(), options.password())
            : new RpcCredentials.Cookie(
                options.cookie() != null ? options.cookie() : datadir.resolve(".cookie"));
    log.println(
        "bbf-index: snapshot of the running node's indexes in "
            + datadir
            + " (under "
            + work
            + ")");
    NodeIndex index = NodeIndex.open(datadir, work, true);
    ChainBackend history = null;
    try {
      BuildOptions build =
          BuildOptions.defaults()
              .withTargetFpr(targetFpr)
              .withSalt(StoreSalt.forStore(filters, false));
      FilterStore store = FilterBuilder.ensureBuilt(index, filters, build, new ConsoleProgress());
      history = new CoreChainBackend(index, store);
      SnapshotBase base = SnapshotBase.of(index);
      FollowConfig config =
          new FollowConfig(
              new NodeRpc(rpcUri, credentials, Duration.ofSeconds(30)),
              options.zmq(),
              datadir.resolve("blocks"),
              base.hash(),
              base.height(),
              POLL);
      FollowStats stats = new FollowStats();
      Follower follower = Follower.start(config, stats);
      log.printf(
          "bbf-index: snapshot complete to %d (block index tip %d); following %s (%s)%n",
          base.height(), index.tipHeight(), rpcUri, network);
      FollowingBackend backend = new FollowingBackend(history, follower);
      if (options.refreshBlocks() > 0) {
        HistoryRefresh refresh =
            new HistoryRefresh(
                backend, datadir, filters, work, build, config, stats, options.refreshBlocks());
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
      throw e;
    }
  }

  /**
   * Waits (at most {@code timeout}) for the first catch-up, so that the first answers are current.
   */
  public static FollowState awaitFollowing(ChainBackend backend, Duration timeout)
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

  /** The network a data directory belongs to, from Core's per-network subfolder names. */
  static String networkOf(Path datadir) {
    String name = datadir.getFileName() == null ? "" : datadir.getFileName().toString();
    return switch (name) {
      case "regtest" -> "regtest";
      case "testnet3" -> "test";
      case "testnet4" -> "testnet4";
      case "signet" -> "signet";
      default -> "main";
    };
  }

  private static String withSlash(String url) {
    return url.endsWith("/") ? url : url + "/";
  }
}
