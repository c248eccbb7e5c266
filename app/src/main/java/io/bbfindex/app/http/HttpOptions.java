package io.bbfindex.app.http;

import static io.bbfindex.filters.Arguments.requireArgument;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How the server treats connections and browsers, independent of the routes: the CORS origins it
 * answers, the per-client rate limit, the cap on open connections and the idle and request timeouts
 * and the socket transport under it, and the host names it answers to ({@code serve --cors-origins
 * --rate-limit --rate-burst --max-connections --idle-timeout --request-timeout --transport
 * --io-threads --allowed-hosts}).
 *
 * @param corsOrigins origins allowed to read answers from a browser ({@code
 *     https://wallet.example}), {@code *} for any; empty: no CORS headers at all
 * @param rateLimit requests per second each client IP may make on average; 0: no limit
 * @param rateBurst requests a client IP may make at once before the rate applies
 * @param maxConnections open connections beyond which new ones are refused (503, then closed)
 * @param idleTimeout a connection that neither reads nor writes for this long is closed
 * @param requestTimeout a request must arrive in full (line, headers, body) within this long of its
 *     first byte, else 408 and the connection is closed (slowloris)
 * @param transport the socket I/O; {@link Transport#AUTO} takes the best that loads here
 * @param ioThreads event loops that serve connections; 0: {@link HttpServer#defaultIoThreads()}
 * @param allowedHosts host names a request's {@code Host} may name besides IP literals and {@code
 *     localhost} names ({@link HostCheck}); {@code *} for any name
 */
public record HttpOptions(
    List<String> corsOrigins,
    int rateLimit,
    int rateBurst,
    int maxConnections,
    Duration idleTimeout,
    Duration requestTimeout,
    Transport transport,
    int ioThreads,
    List<String> allowedHosts) {

  /**
   * No CORS, no rate limit, 4,096 connections, 60 s idle, 30 s per request, the best transport and
   * default number of event loops.
   */
  public static final HttpOptions DEFAULTS =
      new HttpOptions(
          List.of(),
          0,
          0,
          4_096,
          Duration.ofSeconds(60),
          Duration.ofSeconds(30),
          Transport.AUTO,
          0,
          List.of());

  public HttpOptions {
    corsOrigins = List.copyOf(corsOrigins);
    allowedHosts = List.copyOf(allowedHosts);
    for (String host : allowedHosts) {
      requireArgument(HostCheck.isHostName(host), "not a host name", host);
    }
    requireArgument(rateLimit >= 0, "rateLimit must be >= 0", rateLimit);
    requireArgument(rateLimit == 0 || rateBurst >= 1, "rateBurst must be >= 1", rateBurst);
    requireArgument(maxConnections >= 1, "maxConnections must be >= 1", maxConnections);
    requireArgument(
        idleTimeout.isPositive(), "idleTimeout must be positive", idleTimeout.toMillis());
    requireArgument(
        requestTimeout.isPositive(), "requestTimeout must be positive", requestTimeout.toMillis());
    Objects.requireNonNull(transport, "transport");
    requireArgument(ioThreads >= 0, "ioThreads must be >= 0", ioThreads);
    for (String origin : corsOrigins) {
      requireArgument(origin.equals("*") || isOrigin(origin), "not an origin", origin);
    }
  }

  /**
   * Parses a comma-separated origin list such as {@code https://a.example,http://localhost:3000} or
   * {@code *}.
   *
   * @throws IllegalArgumentException naming the first entry that is not {@code
   *     scheme://host[:port]}
   */
  public static List<String> parseOrigins(String commaSeparated) {
    List<String> origins = new ArrayList<>();
    for (String part : commaSeparated.split(",", -1)) {
      String origin = part.strip();
      if (!origin.equals("*") && !isOrigin(origin)) {
        throw new IllegalArgumentException(
            "'"
                + origin
                + "' is not an origin: write scheme://host[:port] (no path, no trailing slash),"
                + " e.g. https://wallet.example, or * for any");
      }
      origins.add(origin);
    }
    return origins;
  }

  /**
   * Parses a comma-separated list of host names such as {@code bbf.example.com,bbf.lan}, or {@code
   * *}.
   *
   * @throws IllegalArgumentException naming the first entry that is not a host name
   */
  public static List<String> parseAllowedHosts(String commaSeparated) {
    List<String> hosts = new ArrayList<>();
    for (String part : commaSeparated.split(",", -1)) {
      String host = part.strip();
      if (!HostCheck.isHostName(host)) {
        throw new IllegalArgumentException(
            "'" + host + "' is not a host name: write a DNS name such as bbf.example.com, or *");
      }
      hosts.add(host);
    }
    return hosts;
  }

  /** Whether CORS headers are written at all. */
  public boolean cors() {
    return !corsOrigins.isEmpty();
  }

  /** Whether requests are rate limited. */
  public boolean rateLimited() {
    return rateLimit > 0;
  }

  /** A copy with another connection cap (tests and benchmarks). */
  public HttpOptions withMaxConnections(int cap) {
    return new HttpOptions(
        corsOrigins,
        rateLimit,
        rateBurst,
        cap,
        idleTimeout,
        requestTimeout,
        transport,
        ioThreads,
        allowedHosts);
  }

  /** A copy with the given timeouts. */
  public HttpOptions withTimeouts(Duration idle, Duration request) {
    return new HttpOptions(
        corsOrigins,
        rateLimit,
        rateBurst,
        maxConnections,
        idle,
        request,
        transport,
        ioThreads,
        allowedHosts);
  }

  /** A copy with the given rate limit. */
  public HttpOptions withRateLimit(int perSecond, int burst) {
    return new HttpOptions(
        corsOrigins,
        perSecond,
        burst,
        maxConnections,
        idleTimeout,
        requestTimeout,
        transport,
        ioThreads,
        allowedHosts);
  }

  /** A copy with the given CORS origins. */
  public HttpOptions withCorsOrigins(List<String> origins) {
    return new HttpOptions(
        origins,
        rateLimit,
        rateBurst,
        maxConnections,
        idleTimeout,
        requestTimeout,
        transport,
        ioThreads,
        allowedHosts);
  }

  /** A copy on {@code io} with {@code threads} event loops (0: the default). */
  public HttpOptions withTransport(Transport io, int threads) {
    return new HttpOptions(
        corsOrigins,
        rateLimit,
        rateBurst,
        maxConnections,
        idleTimeout,
        requestTimeout,
        io,
        threads,
        allowedHosts);
  }

  /** A copy that also answers requests naming {@code hosts} ({@code *}: any name). */
  public HttpOptions withAllowedHosts(List<String> hosts) {
    return new HttpOptions(
        corsOrigins,
        rateLimit,
        rateBurst,
        maxConnections,
        idleTimeout,
        requestTimeout,
        transport,
        ioThreads,
        hosts);
  }

  /** What a browser sends in {@code Origin}: a scheme, a host, maybe a port, nothing else. */
  private static boolean isOrigin(String s) {
    Objects.requireNonNull(s, "origin");
    try {
      URI u = new URI(s);
      return ("http".equals(u.getScheme()) || "https".equals(u.getScheme()))
          && u.getHost() != null
          && u.getRawPath().isEmpty()
          && u.getRawQuery() == null
          && u.getRawFragment() == null
          && u.getRawUserInfo() == null;
    } catch (URISyntaxException e) {
      return false;
    }
  }
}
