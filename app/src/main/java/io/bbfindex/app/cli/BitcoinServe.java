package io.bbfindex.app.cli;

import io.bbfindex.app.bitcoincore.ServeRequest;
import io.bbfindex.app.bitcoincore.TxIndexChoice;
import io.bbfindex.app.demo.EmbeddedDemo;
import io.bbfindex.app.esplora.NodeRelay;
import io.bbfindex.app.follow.FollowOptions;
import io.bbfindex.app.follow.FollowServe;
import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.HttpOptions;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.pruned.PrunedOptions;
import io.bbfindex.app.push.PushOptions;
import io.bbfindex.app.workdir.NodeDirectories;
import io.bbfindex.follow.node.NodeAccess;
import io.bbfindex.follow.node.NodeRpc;
import io.bbfindex.ingest.filterbuild.StoreFpr;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * {@code serve} of Bitcoin lookups: the embedded demo, a data directory's store, or a running node
 * followed ({@code --follow}).
 */
final class BitcoinServe {
  private BitcoinServe() {}

  static ServeCommand.Started start(ServeCommand c, CliContext context)
      throws UsageException, IOException {
    if (c.filters.isPresent() && !c.node.given()) {
      throw new UsageException(
          "--filters needs --datadir (give neither to serve the embedded demo)");
    }
    HttpOptions http = c.http.options();
    InetSocketAddress address = c.http.address();
    String esploraPrefix = c.esplora.prefix();
    boolean demo = !c.node.given();
    if (demo && c.follow.follow) {
      throw new UsageException("--follow needs the --datadir of a running node");
    }
    PrintStream err = context.err();
    Optional<NodeDirectories> node = Optional.empty();
    Path datadir;
    Path filters;
    Path work;
    if (demo) {
      Path home =
          context
              .home()
              .orElseThrow(
                  () ->
                      new UsageException(
                          "no --datadir given and the project root is unknown (-Dbbf.home); run"
                              + " through ./bbf-index"));
      EmbeddedDemo.Layout layout = EmbeddedDemo.prepare(home, err);
      datadir = layout.datadir();
      filters = layout.filters();
      work = c.store.work.orElse(layout.work());
    } else {
      NodeDirectories dirs = c.node.directories();
      node = Optional.of(dirs);
      datadir = dirs.netDir();
      filters = c.filters.isPresent() ? c.filters.get() : NodeCommands.defaultStore(dirs, err);
      work = c.store.work(filters);
    }
    // Without --fpr an existing store is served at the FPR it was built with, not rebuilt.
    double fpr = c.store.fpr.orElseGet(() -> StoreFpr.forStore(filters, StoreOptions.DEFAULT_FPR));
    TxIndexChoice txindex = c.txindex.choice();
    if (c.pruned.backfill && (c.follow.follow || txindex == TxIndexChoice.NODE)) {
      throw new UsageException(
          "--backfill-pruned works with the own txid index (--txindex auto or own), without"
              + " --follow yet");
    }
    Service service;
    if (node.isPresent() && c.follow.follow) {
      if (PrunedOptions.prunesPerConf(node.get().conf(), node.get().chain())) {
        throw new UsageException(
            "--follow beside a pruning node (prune= in its bitcoin.conf) is not supported yet: run"
                + " serve without --follow, restarted regularly (each start keeps what the node is"
                + " about to delete), or follow a node that keeps its blocks");
      }
      FollowOptions f = c.follow.options();
      ChainBackend backend;
      NodeRelay relay;
      try {
        backend = FollowServe.open(node.get(), filters, work, fpr, f, txindex, err);
        relay = FollowServe.relay(node.get(), f, c.esplora.relay);
      } catch (IllegalArgumentException e) {
        throw new UsageException(e.getMessage());
      }
      service = service(backend, address, http, esploraPrefix, relay, c.follow.push());
    } else {
      PrunedOptions pruned = prunedOptions(c, node);
      service =
          StartWhileOpening.start(
              () ->
                  context
                      .access()
                      .open(
                          new ServeRequest(
                              datadir, filters, work, c.store.choices(fpr), txindex, pruned),
                          context.err()),
              backend ->
                  service(backend, address, http, esploraPrefix, null, PushOptions.DEFAULTS));
    }
    String base = service.server().baseUrl();
    context
        .out()
        .println("listening on " + base + " (" + service.server().transport().label() + ")");
    if (demo) {
      context.out().print(demoExamples(base));
    }
    context.out().flush();
    return new ServeCommand.Started(service, demo);
  }

  /**
   * What is known of the node's pruning (its bitcoin.conf) and {@code --backfill-pruned}, which
   * reaches the node's RPC as {@code --follow} does ({@code --rpc}, {@code --rpc-cookie}, ...).
   */
  private static PrunedOptions prunedOptions(ServeCommand c, Optional<NodeDirectories> node)
      throws UsageException, IOException {
    double rate = c.pruned.rate();
    if (node.isEmpty()) {
      if (c.pruned.backfill) {
        throw new UsageException("--backfill-pruned needs the --datadir of a running node");
      }
      return PrunedOptions.NONE;
    }
    NodeDirectories dirs = node.get();
    boolean prunes = PrunedOptions.prunesPerConf(dirs.conf(), dirs.chain());
    if (!c.pruned.backfill) {
      return new PrunedOptions(prunes, false, rate, null);
    }
    FollowOptions f = c.follow.options();
    NodeAccess access;
    try {
      access =
          NodeAccess.resolve(
              dirs.netDir(),
              dirs.chain(),
              dirs.conf(),
              new NodeAccess.Flags(f.rpc(), f.cookie(), f.user(), f.password(), f.zmq()));
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage(), e);
    }
    return new PrunedOptions(
        prunes,
        true,
        rate,
        new NodeRpc(access.rpc(), access.credentials(), java.time.Duration.ofSeconds(30)));
  }

  private static Service service(
      ChainBackend backend,
      InetSocketAddress address,
      HttpOptions http,
      String esploraPrefix,
      @Nullable NodeRelay relay,
      PushOptions push)
      throws IOException {
    return Service.start(
        backend,
        null,
        address,
        HttpInitializer.DEFAULT_MAX_BODY_BYTES,
        http,
        esploraPrefix,
        relay,
        push);
  }

  static String demoExamples(String base) {
    return """

    Embedded demo: real Bitcoin mainnet blocks 0-599. Try:
      curl -s %1$s/v1/tx/%2$s
      curl -s %1$s/v1/tx/%3$s
      curl -s %1$s/v1/block/%4$s
      curl -s -X POST %1$s/v1/tx/lookup -d '["%2$s","%3$s"]'
      curl -s %1$s/v1/tx/%2$s/merkle-proof
      curl -s %1$s/api/tx/%2$s/status
      curl -s %1$s/v1/filters
      curl -s %1$s/metrics | grep '^bbf_'
    """
        .formatted(base, EmbeddedDemo.PAYMENT_170, EmbeddedDemo.LATER_TXID, EmbeddedDemo.BLOCK_170);
  }
}
