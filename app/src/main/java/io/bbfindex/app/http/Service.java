package io.bbfindex.app.http;

import io.bbfindex.app.esplora.EsploraApi;
import io.bbfindex.app.esplora.NodeRelay;
import io.bbfindex.app.eth.EthMetrics;
import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.metrics.ConnectionMetrics;
import io.bbfindex.app.metrics.Metrics;
import io.bbfindex.app.push.PushOptions;
import io.bbfindex.app.route.RouteTable;
import io.bbfindex.eth.EthIndex;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The running service: one backend, its own Prometheus registry, the lookup logic and the HTTP
 * server, wired together. {@link #close()} stops the server first, then closes the backend, so no
 * request reads a closed index.
 */
public final class Service implements AutoCloseable {
  private final @Nullable ChainBackend backend;
  private final PrometheusMeterRegistry registry;
  private final Metrics metrics;
  private final HttpServer server;
  private final RouteTable routes;

  /** The Ethereum source, or null. */
  private final @Nullable EthIndex eth;

  private Service(
      @Nullable ChainBackend backend,
      PrometheusMeterRegistry registry,
      Metrics metrics,
      HttpServer server,
      RouteTable routes,
      @Nullable EthIndex eth) {
    this.eth = eth;
    this.routes = routes;
    this.backend = backend;
    this.registry = registry;
    this.metrics = metrics;
    this.server = server;
  }

  /**
   * Starts serving {@code backend} on {@code address}; the service owns the backend from here on
   * (it is closed with the service, or at once if the server cannot start).
   */
  public static Service start(ChainBackend backend, InetSocketAddress address, int maxBodyBytes)
      throws IOException {
    return start(backend, null, address, maxBodyBytes);
  }

  /**
   * As {@link #start(ChainBackend, InetSocketAddress, int)}, plus the Ethereum source {@code eth}
   * (or null): its routes and meters are added, and it follows the node's head until the service
   * closes it. With {@code backend} null (an Ethereum-only server) no Bitcoin route is served.
   */
  public static Service start(
      @Nullable ChainBackend backend,
      @Nullable EthIndex eth,
      InetSocketAddress address,
      int maxBodyBytes)
      throws IOException {
    return start(
        backend, eth, address, maxBodyBytes, HttpOptions.DEFAULTS, EsploraApi.DEFAULT_PREFIX, null);
  }

  /** As the full overload below, with the default esplora prefix and no followed node. */
  public static Service start(
      @Nullable ChainBackend backend,
      @Nullable EthIndex eth,
      InetSocketAddress address,
      int maxBodyBytes,
      HttpOptions options)
      throws IOException {
    return start(backend, eth, address, maxBodyBytes, options, EsploraApi.DEFAULT_PREFIX, null);
  }

  /** As the full overload below, with the default connection and browser policy. */
  public static Service start(
      @Nullable ChainBackend backend,
      @Nullable EthIndex eth,
      InetSocketAddress address,
      int maxBodyBytes,
      String esploraPrefix,
      @Nullable NodeRelay node)
      throws IOException {
    return start(backend, eth, address, maxBodyBytes, HttpOptions.DEFAULTS, esploraPrefix, node);
  }

  /** As the full overload below, with the push features' defaults. */
  public static Service start(
      @Nullable ChainBackend backend,
      @Nullable EthIndex eth,
      InetSocketAddress address,
      int maxBodyBytes,
      HttpOptions options,
      String esploraPrefix,
      @Nullable NodeRelay node)
      throws IOException {
    return start(
        backend, eth, address, maxBodyBytes, options, esploraPrefix, node, PushOptions.DEFAULTS);
  }

  /**
   * As {@link #start(ChainBackend, EthIndex, InetSocketAddress, int)}, with the connection and
   * browser policy {@code options} (CORS, rate limit, connection cap, timeouts), the esplora routes
   * under {@code esploraPrefix} and the followed node's {@code mempool/txids} and {@code POST tx}
   * through {@code node} (or null when the server follows no node), and under {@code serve
   * --follow} the push features (Server-Sent Events, the WebSocket) set by {@code push}.
   */
  public static Service start(
      @Nullable ChainBackend backend,
      @Nullable EthIndex eth,
      InetSocketAddress address,
      int maxBodyBytes,
      HttpOptions options,
      String esploraPrefix,
      @Nullable NodeRelay node,
      PushOptions push)
      throws IOException {
    if (backend == null && eth == null) {
      throw new IllegalArgumentException("a server needs Bitcoin data, an Ethereum source or both");
    }
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try {
      Metrics metrics = new Metrics(registry, version());
      if (backend != null) {
        metrics.bindBackend(backend);
      }
      if (backend instanceof MeterBinder own) { // e.g. the follower's gauges (serve --follow)
        own.bindTo(registry);
      }
      if (eth != null) {
        EthMetrics.bind(registry, eth);
      }
      ApiHandler handler =
          new ApiHandler(
              ServedFeatures.routes(
                  new ServedFeatures.Sources(
                      Optional.ofNullable(backend),
                      Optional.ofNullable(eth),
                      esploraPrefix,
                      Optional.ofNullable(node),
                      options.corsOrigins(),
                      push),
                  registry,
                  metrics),
              metrics);
      HttpServer server =
          HttpServer.start(
              address,
              new HttpInitializer(handler, maxBodyBytes, options, new ConnectionMetrics(registry)),
              options.transport(),
              options.ioThreads());
      metrics.bindEventLoops(server.eventLoops());
      if (eth != null) {
        eth.startFollowing();
      }
      return new Service(backend, registry, metrics, server, handler.routes(), eth);
    } catch (IOException | RuntimeException e) {
      registry.close();
      try {
        if (backend != null) {
          backend.close();
        }
      } finally {
        if (eth != null) {
          eth.close();
        }
      }
      throw e;
    }
  }

  /** The version in the jar manifest, or {@code dev} when run from classes. */
  public static String version() {
    String v = Service.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }

  public HttpServer server() {
    return server;
  }

  public Metrics metrics() {
    return metrics;
  }

  /** The Bitcoin data served, or null for an Ethereum-only server. */
  public @Nullable ChainBackend backend() {
    return backend;
  }

  /** Every route the server serves (and documents in {@code GET /v1/openapi.json}). */
  public RouteTable routes() {
    return routes;
  }

  /** The Ethereum source, or null. */
  public @Nullable EthIndex eth() {
    return eth;
  }

  /** Blocks until the server stops. */
  public void awaitClose() throws InterruptedException {
    server.awaitClose();
  }

  @Override
  public void close() {
    try {
      server.close();
    } finally {
      try {
        if (backend != null) {
          backend.close();
        }
      } finally {
        try {
          if (eth != null) {
            eth.close();
          }
        } finally {
          registry.close();
        }
      }
    }
  }
}
