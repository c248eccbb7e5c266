package io.bbfindex.app.cli;

import io.bbfindex.app.bitcoincore.ChainAccess;
import io.bbfindex.app.demo.EmbeddedDemo;
import io.bbfindex.app.esplora.EsploraApi;
import io.bbfindex.app.esplora.NodeRelay;
import io.bbfindex.app.follow.FollowOptions;
import io.bbfindex.app.follow.FollowServe;
import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.HttpOptions;
import io.bbfindex.app.http.Service;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.lookup.OpeningBackend;
import io.bbfindex.app.push.PushOptions;
import io.bbfindex.app.workdir.NodeDirectories;
import io.bbfindex.ingest.filterbuild.StoreFpr;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** {@code bbf-index serve}: open the backend, start the HTTP server, print where it listens. */
public final class ServeCommand {
  static final String HELP =
      """
      usage: bbf-index serve [--datadir DIR [--filters DIR] [--follow]] [--port N] [--bind ADDR] [--work DIR] [--fpr P] [--unsalted]

      Serves txid and block lookups over HTTP.

      With no --datadir, serves the embedded demo: the real mainnet blocks 0-599 data directory
      shipped in fixtures/, extracted and ingested on first run under data/demo/.

        --datadir DIR   Bitcoin Core data directory, as bitcoind's -datadir (e.g. ~/.bitcoin:
                        its bitcoin.conf says the network; or ~/.bitcoin/regtest); read only.
                        Without --follow, stop bitcoind or point at a copy.
        --conf FILE     the node's configuration (default DIR/bitcoin.conf)
        --filters DIR   filter store built by 'bbf-index ingest'; built here if missing, and
                        brought up to date if damaged or behind the data directory (default:
                        $XDG_DATA_HOME/bbf-index/<network>-<hash of the data directory>, printed)
        --port N        TCP port, 0 picks a free one (default 8080)
        --bind ADDR     IP address to listen on (default 127.0.0.1)
        --work DIR      scratch for private LevelDB snapshots (default: DIR/../work of --filters)
        --fpr P         target false-positive rate when the store must be built, in [1e-9, 0.5]
                        (default: the existing store's, else 0.01)
        --unsalted      build unkeyed filters (default: a secret random salt per store)
        --esplora-prefix P   where the esplora-compatible routes live (default /api)
        --esplora-relay with --follow: POST <prefix>/tx relays to the node's sendrawtransaction

      Prints 'listening on http://HOST:PORT (TRANSPORT)' once it accepts connections; stops on
      Ctrl-C/SIGTERM.
      """
          + HttpServeOptions.HELP
          + FollowOptions.HELP;

  private static final Set<String> OPTIONS =
      Stream.concat(
              Stream.of(
                  "datadir", "conf", "filters", "port", "bind", "work", "fpr", "esplora-prefix"),
              HttpServeOptions.NAMES.stream())
          .collect(Collectors.toUnmodifiableSet());

  /** The flag that lets {@code POST <prefix>/tx} relay to the followed node. */
  static final String RELAY_FLAG = "--esplora-relay";

  private ServeCommand() {}

  /** The started service and whether it is the demo; the caller waits on and closes it. */
  record Started(Service service, boolean demo) {}

  static Started start(
      List<String> args, PrintStream out, PrintStream err, ChainAccess access, Path home)
      throws UsageException, IOException {
    List<String> rest = new java.util.ArrayList<>(args);
    boolean unsalted = Options.flag(rest, "unsalted");
    boolean relay = Options.flag(rest, RELAY_FLAG.substring(2));
    boolean follow = rest.contains(FollowOptions.FLAG);
    if (relay && !follow) {
      throw new UsageException(RELAY_FLAG + " needs --follow: it relays to the followed node");
    }
    Options o =
        follow
            ? Options.parse(
                "serve",
                rest.stream().filter(a -> !a.equals(FollowOptions.FLAG)).toList(),
                Stream.concat(OPTIONS.stream(), FollowOptions.NAMES.stream())
                    .collect(Collectors.toSet()))
            : Options.parse("serve", rest, OPTIONS);
    if (o.help()) {
      out.print(HELP);
      return null;
    }
    if (o.has("filters") && !o.has("datadir")) {
      throw new UsageException(
          "--filters needs --datadir (give neither to serve the embedded demo)");
    }
    int port = o.integer("port", 8080, 0, 65_535);
    InetAddress bind = o.address("bind", "127.0.0.1");
    Double fprGiven = o.has("fpr") ? o.fpr("fpr", IngestCommand.DEFAULT_FPR) : null;
    HttpOptions http = HttpServeOptions.parse(o);
    requirePortFree(bind, port);
    Path datadir = o.path("datadir");
    Path filters = o.path("filters");
    Path work = o.path("work");
    String esploraPrefix = o.string("esplora-prefix", EsploraApi.DEFAULT_PREFIX);
    try {
      EsploraApi.checkPrefix(esploraPrefix);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    boolean demo = datadir == null;
    if (demo && follow) {
      throw new UsageException("--follow needs the --datadir of a running node");
    }
    NodeDirectories node = null;
    if (demo) {
      if (home == null) {
        throw new UsageException(
            "no --datadir given and the project root is unknown (-Dbbf.home); run through"
                + " ./bbf-index");
      }
      EmbeddedDemo.Layout layout = EmbeddedDemo.prepare(home, err);
      datadir = layout.datadir();
      filters = layout.filters();
      work = work == null ? layout.work() : work;
    } else {
      node = NodeCommands.directories(datadir, o.path("conf"));
      datadir = node.netDir();
      if (filters == null) {
        filters = NodeCommands.defaultStore(node, err);
      }
    }
    if (work == null) {
      work = filters.resolveSibling(filters.getFileName() + "-work");
    }
    // Without --fpr an existing store is served at the FPR it was built with, not rebuilt.
    double fpr =
        fprGiven != null ? fprGiven : StoreFpr.forStore(filters, IngestCommand.DEFAULT_FPR);
    InetSocketAddress address = new InetSocketAddress(bind, port);
    Service service;
    if (follow) {
      FollowOptions f =
          new FollowOptions(
              o.string("rpc", null),
              o.path("rpc-cookie"),
              o.string("rpc-user", null),
              rpcPassword(o),
              o.string("zmq", null),
              o.integer("refresh-blocks", FollowOptions.DEFAULT_REFRESH_BLOCKS, 0, 1_000_000));
      ChainBackend backend;
      NodeRelay relayTo;
      try {
        backend = FollowServe.open(node, filters, work, fpr, f, err);
        relayTo = FollowServe.relay(node, f, relay);
      } catch (IllegalArgumentException e) {
        throw new UsageException(e.getMessage());
      }
      // --max-tracked: the one push option (issue 27), parsed here alone
      PushOptions push =
          new PushOptions(
              PushOptions.DEFAULTS.heartbeat(),
              o.integer("max-tracked", PushOptions.DEFAULTS.maxTracked(), 1, 100_000));
      service = startService(backend, address, http, esploraPrefix, relayTo, push);
    } else {
      Path d = datadir;
      Path fl = filters;
      Path w = work;
      service =
          startWhileOpening(
              () -> access.open(d, fl, w, fpr, unsalted, err),
              backend ->
                  startService(backend, address, http, esploraPrefix, null, PushOptions.DEFAULTS));
    }
    String base = service.server().baseUrl();
    out.println("listening on " + base + " (" + service.server().transport().label() + ")");
    if (demo) {
      out.print(demoExamples(base));
    }
    out.flush();
    return new Started(service, demo);
  }

  /**
   * The RPC password: {@code --rpc-password-file} (its first line), {@code --rpc-password}, or
   * {@code $BBF_RPC_PASSWORD} beside {@code --rpc-user}; at most one of the options.
   */
  private static String rpcPassword(Options o) throws UsageException, IOException {
    if (o.has("rpc-password") && o.has("rpc-password-file")) {
      throw new UsageException("give --rpc-password or --rpc-password-file, not both");
    }
    if (o.has("rpc-password-file")) {
      Path file = o.path("rpc-password-file");
      try {
        return Files.readAllLines(file).stream().findFirst().orElse("").strip();
      } catch (NoSuchFileException e) {
        throw new UsageException("--rpc-password-file " + file + " does not exist", e);
      }
    }
    String env = System.getenv(FollowOptions.PASSWORD_ENV);
    boolean fromEnv = o.has("rpc-user") && env != null && !env.isEmpty();
    return o.string("rpc-password", fromEnv ? env : null);
  }

  private static Service startService(
      ChainBackend backend,
      InetSocketAddress address,
      HttpOptions http,
      String esploraPrefix,
      NodeRelay node,
      PushOptions push)
      throws IOException {
    return Service.start(
        backend,
        null,
        address,
        HttpInitializer.DEFAULT_MAX_BODY_BYTES,
        http,
        esploraPrefix,
        node,
        push);
  }

  /** Opens the backend ({@link ChainAccess#open}). */
  @FunctionalInterface
  public interface BackendOpener {
    ChainBackend open() throws IOException;
  }

  /** Starts the service over a backend ({@link Service#start}). */
  @FunctionalInterface
  public interface ServiceStarter {
    Service start(ChainBackend backend) throws IOException;
  }

  /**
   * Starts the HTTP server while the backend is opened on another thread, and returns once both are
   * done, so 'listening' is still printed when lookups are answered. At mainnet scale each takes
   * about a second (reading and verifying 1.75 GiB of summary; class loading and set-up of Netty,
   * Micrometer and the routes) and neither needs the other until the first lookup; one after the
   * other they took the sum. Meanwhile the server answers {@code /livez}, and 503 to lookups and
   * {@code /readyz} ({@link OpeningBackend}): nothing is answered from a store before it is
   * verified. If either fails, the other is undone and the failure thrown.
   */
  public static Service startWhileOpening(BackendOpener opener, ServiceStarter starter)
      throws IOException {
    OpeningBackend opening = new OpeningBackend();
    FutureTask<ChainBackend> open = new FutureTask<>(opener::open);
    Thread.ofPlatform().name("bbf-open-backend").start(open);
    Service service = null;
    try {
      service = starter.start(opening); // closes `opening` if the server cannot start
      opening.complete(opened(open));
      return service;
    } catch (IOException | RuntimeException | Error e) {
      if (service != null) {
        service.close(); // also closes `opening`
      } else {
        awaitAndClose(open, opening);
      }
      throw e;
    }
  }

  /** The opened backend, or the failure of opening it as it was thrown. */
  private static ChainBackend opened(FutureTask<ChainBackend> open) throws IOException {
    try {
      return open.get();
    } catch (InterruptedException e) {
      open.cancel(true);
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while opening the index");
    } catch (ExecutionException e) {
      switch (e.getCause()) {
        case IOException io -> throw io;
        case RuntimeException r -> throw r;
        case Error err -> throw err;
        default -> throw new IOException(e.getCause());
      }
    }
  }

  /**
   * After the server failed to start: waits for the backend being opened and closes it ({@code
   * opening} is closed, so handing the backend over closes it); its own failure is dropped.
   */
  private static void awaitAndClose(FutureTask<ChainBackend> open, OpeningBackend opening) {
    try {
      opening.complete(opened(open));
    } catch (IOException | RuntimeException e) {
      // the server's failure is the one reported
    }
  }

  /**
   * Binds the port and lets it go: a port in use is a usage error found in a millisecond, not after
   * building or verifying the store (minutes on mainnet). Port 0 is always free.
   */
  private static void requirePortFree(InetAddress bind, int port) throws UsageException {
    if (port == 0) {
      return;
    }
    try (ServerSocket probe = new ServerSocket()) {
      probe.setReuseAddress(true); // as the server binds: a TIME_WAIT leftover is no conflict
      probe.bind(new InetSocketAddress(bind, port));
    } catch (IOException e) {
      throw new UsageException(
          "--port "
              + port
              + " on "
              + bind.getHostAddress()
              + " is in use or not allowed ("
              + e.getMessage()
              + "); pick another port, or 0 for a free one",
          e);
    }
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
