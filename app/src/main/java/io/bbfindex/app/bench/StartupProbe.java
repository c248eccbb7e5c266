package io.bbfindex.app.bench;

import io.bbfindex.app.Service;
import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.ingest.store.FilterStore;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Started in a fresh JVM by {@link ScaleBench}: does what {@code serve} does with a built filter
 * store before it prints {@code listening on http://HOST:PORT} (open and validate the store,
 * describe every filter for {@code /v1/filters} and the gauges, start the HTTP server on
 * 127.0.0.1, port 0), prints that line and a breakdown, and exits. What it cannot do at scale is
 * open a mainnet block index ({@code NodeIndex}): a synthetic store has none.
 *
 * <p>Output: {@code listening on ...}, then {@code probe: jvm_ms=.. open_ms=.. describe_ms=..
 * http_ms=..}.
 */
public final class StartupProbe {

  private StartupProbe() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: StartupProbe FILTER_STORE_DIR");
      System.exit(2);
    }
    long mainNanos = System.nanoTime();
    long jvmMs = System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime();
    FilterStore store = FilterStore.open(Path.of(args[0]));
    long opened = System.nanoTime();
    FilterStoreBackend backend = new FilterStoreBackend(store, null);
    long described = System.nanoTime();
    try (Service service = Service.start(backend, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
        HttpInitializer.DEFAULT_MAX_BODY_BYTES)) {
      long listening = System.nanoTime();
      System.out.println("listening on " + service.server().baseUrl());
      System.out.printf(Locale.ROOT, "probe: jvm_ms=%d open_ms=%.0f describe_ms=%.0f http_ms=%.0f filters=%d%n", jvmMs,
          (opened - mainNanos) / 1e6, (described - opened) / 1e6, (listening - described) / 1e6,
          store.filters().size());
      System.out.flush();
    }
  }
}
