package io.bbfindex.app.cli;

import io.bbfindex.app.http.HttpOptions;
import io.bbfindex.app.http.Transport;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The {@code serve} options of the HTTP layer: where it listens, CORS, rate limit, connection cap,
 * timeouts, transport.
 */
final class HttpServeOptions {
  private static final HttpOptions D = HttpOptions.DEFAULTS;

  @Option(
      names = "--port",
      paramLabel = "N",
      description = "TCP port, 0 picks a free one (default ${DEFAULT-VALUE}).")
  int port = 8080;

  @Option(
      names = "--bind",
      paramLabel = "ADDR",
      description = "IP address to listen on (default 127.0.0.1: loopback only).")
  InetAddress bind = InetAddress.getLoopbackAddress();

  @Option(
      names = "--cors-origins",
      paramLabel = "LIST",
      description =
          "Comma-separated origins browsers may read answers from"
              + " (https://wallet.example,http://localhost:3000), or * for any (default: none).")
  Optional<String> corsOrigins = Optional.empty();

  @Option(
      names = "--rate-limit",
      paramLabel = "N",
      description =
          "Requests per second per client IP, over it 429 + Retry-After (default 0: off).")
  int rateLimit;

  @Option(
      names = "--rate-burst",
      paramLabel = "N",
      description = "Requests a client IP may make at once (default: --rate-limit).")
  Optional<Integer> rateBurst = Optional.empty();

  @Option(
      names = "--max-connections",
      paramLabel = "N",
      description =
          "Open connections; more are answered 503 and closed (default ${DEFAULT-VALUE}).")
  int maxConnections = D.maxConnections();

  @Option(
      names = "--idle-timeout",
      paramLabel = "S",
      description = "Close connections idle for S seconds (default ${DEFAULT-VALUE}).")
  int idleTimeout = (int) D.idleTimeout().toSeconds();

  @Option(
      names = "--request-timeout",
      paramLabel = "S",
      description = {
        "A request must arrive in full within S seconds of its first byte, else 408 and close",
        "(default ${DEFAULT-VALUE})."
      })
  int requestTimeout = (int) D.requestTimeout().toSeconds();

  @Option(
      names = "--transport",
      paramLabel = "T",
      description =
          "Socket I/O: io_uring, epoll, nio or auto (default auto: the first of them that loads"
              + " here; the 'listening' line names it).")
  String transport = Transport.AUTO.label();

  @Option(
      names = "--io-threads",
      paramLabel = "N",
      description = "Event loops serving connections (default 0: one per core).")
  int ioThreads = D.ioThreads();

  @Option(
      names = "--allowed-hosts",
      paramLabel = "LIST",
      description =
          "Comma-separated host names requests may name in Host besides IP literals and localhost"
              + " names (the name clients or a proxy use); * for any. Others get 421, so a web page"
              + " cannot reach this server by DNS rebinding (default: none).")
  Optional<String> allowedHosts = Optional.empty();

  /** The HTTP layer's options; a value out of its range is a usage error that names it. */
  HttpOptions options() throws UsageException {
    int rate = Bounds.check("--rate-limit", rateLimit, 0, 1_000_000);
    if (rate == 0 && rateBurst.isPresent()) {
      throw new UsageException("option --rate-burst needs --rate-limit");
    }
    int burst = Bounds.check("--rate-burst", rateBurst.orElse(Math.max(rate, 1)), 1, 1_000_000);
    return new HttpOptions(
        parsed("--cors-origins", corsOrigins, HttpOptions::parseOrigins),
        rate,
        burst,
        Bounds.check("--max-connections", maxConnections, 1, 1_000_000),
        Duration.ofSeconds(Bounds.check("--idle-timeout", idleTimeout, 1, 86_400)),
        Duration.ofSeconds(Bounds.check("--request-timeout", requestTimeout, 1, 3_600)),
        transport(),
        Bounds.check("--io-threads", ioThreads, 0, 1_024),
        parsed("--allowed-hosts", allowedHosts, HttpOptions::parseAllowedHosts));
  }

  /**
   * The address to listen on, once its port is known to be free: a port in use is a usage error
   * found in a millisecond, not after building or verifying the store (minutes on mainnet).
   */
  InetSocketAddress address() throws UsageException {
    Bounds.check("--port", port, 0, 65_535);
    if (port != 0) {
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
    return new InetSocketAddress(bind, port);
  }

  private Transport transport() throws UsageException {
    try {
      return Transport.parse(transport);
    } catch (IllegalArgumentException e) {
      throw new UsageException("option --transport: " + e.getMessage(), e);
    }
  }

  /** A list parsed by the HTTP layer; what it refuses is a usage error naming the option. */
  private static List<String> parsed(String option, Optional<String> value, Parser parser)
      throws UsageException {
    if (value.isEmpty()) {
      return List.of();
    }
    try {
      return parser.parse(value.get());
    } catch (IllegalArgumentException e) {
      throw new UsageException("option " + option + ": " + e.getMessage(), e);
    }
  }

  @FunctionalInterface
  private interface Parser {
    List<String> parse(String value);
  }
}
