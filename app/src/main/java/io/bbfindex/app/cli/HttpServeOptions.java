package io.bbfindex.app.cli;

import io.bbfindex.app.http.HttpOptions;
import io.bbfindex.app.http.Transport;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The {@code serve} options of the HTTP layer: CORS, rate limit, connection cap, timeouts,
 * transport.
 */
final class HttpServeOptions {
  static final Set<String> NAMES =
      Set.of(
          "cors-origins",
          "rate-limit",
          "rate-burst",
          "max-connections",
          "idle-timeout",
          "request-timeout",
          "transport",
          "io-threads",
          "allowed-hosts");

  static final String HELP =
      """

      HTTP limits:
        --cors-origins LIST  comma-separated origins browsers may read answers from
                             (https://wallet.example,http://localhost:3000), or * for any
                             (default: none, no CORS headers)
        --rate-limit N       requests per second per client IP, over it 429 + Retry-After
                             (default 0: no limit)
        --rate-burst N       requests a client IP may make at once (default: --rate-limit)
        --max-connections N  open connections; more are answered 503 and closed (default 4096)
        --idle-timeout S     close connections idle for S seconds (default 60)
        --request-timeout S  a request must arrive in full within S seconds of its first byte,
                             else 408 and close (default 30)
        --transport T        socket I/O: io_uring, epoll, nio or auto (default auto: the
                             first of them that loads here; the 'listening' line names it)
        --io-threads N       event loops serving connections (default 0: one per core)
        --allowed-hosts LIST comma-separated host names requests may name in Host besides IP
                             literals and localhost names (e.g. bbf.example.com, the name
                             a proxy or clients use); * for any. Others get 421: a web page
                             cannot reach this server by DNS rebinding (default: none)
      """;

  private HttpServeOptions() {}

  static HttpOptions parse(Options o) throws UsageException {
    HttpOptions d = HttpOptions.DEFAULTS;
    List<String> origins;
    try {
      origins =
          o.has("cors-origins")
              ? HttpOptions.parseOrigins(o.string("cors-origins", ""))
              : List.of();
    } catch (IllegalArgumentException e) {
      throw new UsageException("option --cors-origins: " + e.getMessage(), e);
    }
    int rate = o.integer("rate-limit", 0, 0, 1_000_000);
    int burst = o.integer("rate-burst", Math.max(rate, 1), 1, 1_000_000);
    if (rate == 0 && o.has("rate-burst")) {
      throw new UsageException("option --rate-burst needs --rate-limit");
    }
    Transport transport;
    try {
      transport = Transport.parse(o.string("transport", Transport.AUTO.label()));
    } catch (IllegalArgumentException e) {
      throw new UsageException("option --transport: " + e.getMessage(), e);
    }
    List<String> hosts;
    try {
      hosts =
          o.has("allowed-hosts")
              ? HttpOptions.parseAllowedHosts(o.string("allowed-hosts", ""))
              : List.of();
    } catch (IllegalArgumentException e) {
      throw new UsageException("option --allowed-hosts: " + e.getMessage(), e);
    }
    return new HttpOptions(
        origins,
        rate,
        burst,
        o.integer("max-connections", d.maxConnections(), 1, 1_000_000),
        Duration.ofSeconds(o.integer("idle-timeout", (int) d.idleTimeout().toSeconds(), 1, 86_400)),
        Duration.ofSeconds(
            o.integer("request-timeout", (int) d.requestTimeout().toSeconds(), 1, 3_600)),
        transport,
        o.integer("io-threads", d.ioThreads(), 0, 1_024),
        hosts);
  }
}
