package io.bbfindex.app.http;

import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.metrics.Metrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Optional;

/** The handler of a Bitcoin-only server (no Ethereum source, no followed node), without sockets. */
final class BitcoinHandler {
  private BitcoinHandler() {}

  static ApiHandler over(ChainBackend backend, PrometheusMeterRegistry registry, Metrics metrics) {
    return new ApiHandler(
        ServedFeatures.routes(
            new ServedFeatures.Sources(
                Optional.of(backend), Optional.empty(), "/api", Optional.empty()),
            registry,
            metrics),
        metrics);
  }
}
