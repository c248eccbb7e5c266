package io.bbfindex.app.cli;

import io.bbfindex.app.bitcoincore.ServeRequest;
import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.HttpOptions;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.eth.EthConfig;
import io.bbfindex.eth.EthIndex;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code serve --eth-rpc URL}: Ethereum lookups from the node's store (built and extended here) and
 * its followed tip, alone or with a Bitcoin {@code --datadir} in one server.
 */
final class EthServe {
  private EthServe() {}

  static ServeCommand.Started start(ServeCommand c, CliContext context)
      throws UsageException, IOException {
    HttpOptions http = c.http.options();
    InetSocketAddress address = c.http.address();
    String esploraPrefix = c.esplora.prefix();
    if (c.node.datadir.isEmpty()) {
      Path store =
          c.filters
              .or(() -> c.eth.store)
              .orElseGet(
                  () ->
                      context
                          .home()
                          .orElseGet(() -> Path.of("").toAbsolutePath())
                          .resolve("data")
                          .resolve("eth-filters"));
      // Ethereum only: no Bitcoin route
      return start(config(c, store), Optional.empty(), address, http, esploraPrefix, context);
    }
    Path datadir = c.node.datadir.get();
    Path filters =
        c.filters.orElseThrow(
            () -> new UsageException("option --filters is required with --eth-rpc and --datadir"));
    if (!Files.isDirectory(datadir.resolve("blocks"))) {
      throw new UsageException("--datadir " + datadir + " has no blocks/ folder");
    }
    EthConfig config =
        config(
            c, c.eth.store.orElseGet(() -> filters.resolveSibling(filters.getFileName() + "-eth")));
    double fpr = c.store.fpr.orElse(StoreOptions.DEFAULT_FPR);
    ChainBackend backend =
        context
            .access()
            .open(
                ServeRequest.of(datadir, filters, c.store.work(filters), fpr)
                    .withStore(c.store.choices(fpr)),
                context.err());
    return start(config, Optional.of(backend), address, http, esploraPrefix, context);
  }

  private static EthConfig config(ServeCommand c, Path store) throws UsageException {
    return c.eth.config(store, c.store.fpr.orElse(EthConfig.DEFAULT_FPR));
  }

  private static ServeCommand.Started start(
      EthConfig config,
      Optional<ChainBackend> backend,
      InetSocketAddress address,
      HttpOptions http,
      String esploraPrefix,
      CliContext context)
      throws IOException {
    EthIndex index;
    try {
      index = EthIndex.open(config);
    } catch (IOException | RuntimeException e) {
      if (backend.isPresent()) {
        backend.get().close();
      }
      throw e;
    }
    Service service =
        Service.start(
            backend.orElse(null),
            index,
            address,
            HttpInitializer.DEFAULT_MAX_BODY_BYTES,
            http,
            esploraPrefix,
            null);
    context.out().println("listening on " + service.server().baseUrl());
    context.out().println("eth: following " + index.nodeUrl() + ", store " + config.store());
    context.out().flush();
    return new ServeCommand.Started(service, false);
  }
}
