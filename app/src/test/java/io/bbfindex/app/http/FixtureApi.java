package io.bbfindex.app.http;

import io.bbfindex.app.lookup.ChainBackend;
import io.bbfindex.app.metrics.Metrics;
import io.bbfindex.app.testing.CoreBackends;
import io.bbfindex.ingest.testing.FileTrees;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The API handler of the fuzz targets, over the real production backend of the mainnet 0-599
 * fixture (its store built once per JVM: a fuzz run calls the handler millions of times). Closed,
 * and its directory removed, when the JVM exits.
 */
final class FixtureApi {

  /** The handler over the fixture's store. */
  static final ApiHandler HANDLER = open();

  /**
   * What the server logs at WARNING or above from here on (attached after the store was built,
   * which may warn of its own).
   */
  static final WarningLog WARNINGS = WarningLog.attach("io.bbfindex", "io.netty");

  private FixtureApi() {}

  private static ApiHandler open() {
    try {
      Path tmp = Files.createTempDirectory("fuzz-api");
      ChainBackend backend = CoreBackends.open(Archive.MAINNET_LDB, tmp);
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      Metrics metrics = new Metrics(registry, "fuzz");
      metrics.bindBackend(backend);
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    registry.close();
                    backend.close();
                    try {
                      FileTrees.deleteTree(tmp);
                    } catch (IOException e) {
                      System.err.println("could not remove " + tmp + ": " + e);
                    }
                  }));
      return BitcoinHandler.over(backend, registry, metrics);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
