package io.bbfindex.app.cli;

import io.bbfindex.app.bitcoincore.ChainAccess;
import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.eth.EthConfig;
import io.bbfindex.eth.EthIndex;
import io.bbfindex.eth.EthStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * {@code ingest --eth-rpc URL --out DIR} and {@code serve --eth-rpc URL [--filters DIR]}, alone or
 * with a Bitcoin {@code --datadir} in one server. Chosen by {@link Cli} when {@code --eth-rpc} is
 * given.
 */
final class EthCommands {
  static final String INGEST_HELP =
      """
      usage: bbf-index ingest --eth-rpc URL --out DIR [--range-bits N] [--depth N] [--fpr P]

      Reads the blocks of an Ethereum node over HTTP JSON-RPC (eth_getBlockByNumber, hashes only, in
      batches) and stores, for each range of 2^N final blocks, a blocked Bloom filter of its
      transaction hashes and an exact (hash -> block, index) record, plus a summary filter. A re-run
      adds the ranges that became final since.

        --eth-rpc URL     the node's HTTP JSON-RPC endpoint, e.g. http://127.0.0.1:8545
        --out DIR         where the store is written
        --range-bits N    2^N blocks per range (default 14); fixed when the store is created
        --depth N         blocks below the head taken as final (default: the node's 'finalized'
                          block, or head - 64 when the node reports none)
        --fpr P           target false-positive rate per filter (default 0.01)
      """;

  static final String SERVE_HELP =
      """
      usage: bbf-index serve --eth-rpc URL [--filters DIR] [--datadir DIR --filters DIR --eth-filters DIR]
                             [--port N] [--bind ADDR] [--range-bits N] [--depth N] [--poll-ms N]

      Serves Ethereum transaction lookups (GET /v1/eth/tx/{0x hash}, POST /v1/eth/tx/lookup,
      GET /v1/eth/status): final blocks from the store (built and extended here), newer ones from a
      tip that follows the node's head by polling, through reorgs. With --datadir, Bitcoin lookups
      are served by the same server (--filters is then Bitcoin's store and --eth-filters the
      Ethereum one, by default FILTERS-eth).

        --eth-rpc URL     the node's HTTP JSON-RPC endpoint
        --filters DIR     the Ethereum store (alone; default data/eth-filters)
        --eth-filters DIR the Ethereum store when --datadir is given
        --poll-ms N       how often the head is polled, 50..1000 (default 250)
        other options as in 'bbf-index ingest --eth-rpc' and 'bbf-index serve'
      """;

  private static final Set<String> INGEST_OPTIONS =
      Set.of("eth-rpc", "out", "range-bits", "depth", "fpr");
  private static final Set<String> SERVE_OPTIONS =
      Set.of(
          "eth-rpc",
          "filters",
          "eth-filters",
          "datadir",
          "work",
          "port",
          "bind",
          "fpr",
          "range-bits",
          "depth",
          "poll-ms");

  private EthCommands() {}

  /** Whether the command line names an Ethereum node. */
  static boolean wanted(List<String> args) {
    return args.stream().anyMatch(a -> a.equals("--eth-rpc") || a.startsWith("--eth-rpc="));
  }

  /**
   * @return false when only help was printed
   */
  static boolean ingest(List<String> args, PrintStream out, PrintStream err)
      throws UsageException, IOException {
    Options o = Options.parse("ingest", args, INGEST_OPTIONS);
    if (o.help()) {
      out.print(INGEST_HELP);
      return false;
    }
    EthConfig config = config(o, o.requiredPath("out"));
    try (EthIndex index = open(config)) {
      long started = System.nanoTime();
      int added = index.ingestFinalRanges(err::println);
      EthStatus s = index.status();
      double secs = (System.nanoTime() - started) / 1e9;
      out.printf(
          "eth: %d ranges of %d blocks in %s (%d added in %.1f s, %d transactions); final block %d,"
              + " head %d%n",
          s.ranges(),
          1L << s.rangeBits(),
          config.store(),
          added,
          secs,
          s.historyTxs(),
          s.finalized(),
          s.head());
    }
    return true;
  }

  static ServeCommand.Started serve(
      List<String> args, PrintStream out, PrintStream err, ChainAccess access, Path home)
      throws UsageException, IOException {
    Options o = Options.parse("serve", args, SERVE_OPTIONS);
    if (o.help()) {
      out.print(SERVE_HELP);
      return null;
    }
    int port = o.integer("port", 8080, 0, 65_535);
    InetAddress bind = o.address("bind", "127.0.0.1");
    Path datadir = o.path("datadir");
    Path store;
    ChainBackend backend;
    if (datadir != null) {
      Path filters = o.requiredPath("filters");
      if (!Files.isDirectory(datadir.resolve("blocks"))) {
        throw new UsageException("--datadir " + datadir + " has no blocks/ folder");
      }
      store = o.path("eth-filters");
      if (store == null) {
        store = filters.resolveSibling(filters.getFileName() + "-eth");
      }
      Path work = o.path("work");
      if (work == null) {
        work = filters.resolveSibling(filters.getFileName() + "-work");
      }
      EthConfig config = config(o, store);
      backend = access.open(datadir, filters, work, o.fpr("fpr", IngestCommand.DEFAULT_FPR), err);
      return start(config, backend, bind, port, out);
    }
    store = o.path("filters");
    if (store == null) {
      store = o.path("eth-filters");
    }
    if (store == null) {
      store =
          (home != null ? home : Path.of("").toAbsolutePath())
              .resolve("data")
              .resolve("eth-filters");
    }
    return start(config(o, store), null, bind, port, out); // Ethereum only: no Bitcoin route
  }

  private static ServeCommand.Started start(
      EthConfig config, ChainBackend backend, InetAddress bind, int port, PrintStream out)
      throws IOException {
    EthIndex index;
    try {
      index = open(config);
    } catch (IOException | RuntimeException e) {
      if (backend != null) {
        backend.close();
      }
      throw e;
    }
    Service service =
        Service.start(
            backend,
            index,
            new InetSocketAddress(bind, port),
            HttpInitializer.DEFAULT_MAX_BODY_BYTES);
    out.println("listening on " + service.server().baseUrl());
    out.println("eth: following " + index.nodeUrl() + ", store " + config.store());
    out.flush();
    return new ServeCommand.Started(service, false);
  }

  private static EthIndex open(EthConfig config) throws IOException {
    return EthIndex.open(config);
  }

  private static EthConfig config(Options o, Path store) throws UsageException {
    String url = o.string("eth-rpc", "");
    try {
      return new EthConfig(
          url,
          store,
          o.integer("range-bits", EthConfig.DEFAULT_RANGE_BITS, 0, 20),
          o.integer("depth", -1, 0, 1_000_000),
          o.fpr("fpr", EthConfig.DEFAULT_FPR),
          Duration.ofMillis(
              o.integer("poll-ms", (int) EthConfig.DEFAULT_POLL.toMillis(), 50, 1_000)),
          EthConfig.DEFAULT_TIMEOUT);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
  }
}
