package io.bbfindex.app.http;

import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.lookup.LookupService;
import io.bbfindex.app.metrics.Metrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The running service: one backend, its own Prometheus registry, the lookup logic and the HTTP
 * server, wired together. {@link #close()} stops the server first, then closes the backend, so no
 * request reads a closed index.
 */
public final class Service implements AutoCloseable {
  private final ChainBackend backend;
  private final PrometheusMeterRegistry registry;
  private final Metrics metrics;
  private final HttpServer server;

  private Service(
      ChainBackend backend, PrometheusMeterRegistry registry, Metrics metrics, HttpServer server) {
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
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try {
      Metrics metrics = new Metrics(registry, version());
      metrics.bindBackend(backend);
      ApiHandler handler =
          new ApiHandler(new LookupService(backend, metrics), metrics, registry::scrape);
      HttpServer server = HttpServer.start(address, new HttpInitializer(handler, maxBodyBytes));
      metrics.bindEventLoops(server.eventLoops());
      return new Service(backend, registry, metrics, server);
    } catch (IOException | RuntimeException e) {
      registry.close();
      backend.close();
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

  public ChainBackend backend() {
    return backend;
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
        backend.close();
      } finally {
        registry.close();
      }
    }
  }
}
