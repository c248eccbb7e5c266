package io.bbfindex.benchmarks.scale;

import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.benchmarks.BenchReport;
import io.bbfindex.benchmarks.store.FilterStoreBackend;
import io.bbfindex.ingest.store.FilterStore;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Started in a fresh JVM by {@link ScaleBench}: does what {@code serve} does with a built filter
 * store before it prints {@code listening on http://HOST:PORT} (open and validate the store,
 * describe every filter for {@code /v1/filters} and the gauges, start the HTTP server on 127.0.0.1,
 * port 0), prints that line and a breakdown, and exits. What it cannot do at scale is open a
 * mainnet block index ({@code NodeIndex}): a synthetic store has none.
 *
 * <p>Output: {@code listening on ...}, then {@code probe: jvm_to_main_ms=.. open_ms=.. [cpu ..]
 * describe_ms=.. [cpu ..] http_start_ms=.. [cpu ..] filters=.. rss_mib=.. rss_file_mib=..
 * rss_anon_mib=..}: the filters the store holds, and the memory the process holds once it listens
 * (VmRSS of /proc/self/status, and its file-backed and anonymous parts: the verified in-memory
 * copies of the filters are anonymous memory).
 */
public final class StartupProbe {

  private StartupProbe() {}

  /** CPU time of the whole process (every thread), or -1 where the JVM does not report it. */
  static long processCpuNanos() {
    return ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime()
        : -1;
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: StartupProbe FILTER_STORE_DIR");
      System.exit(2);
    }
    long mainNanos = System.nanoTime();
    long jvmMs = System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime();
    long cpu0 = processCpuNanos();
    FilterStore store = FilterStore.open(Path.of(args[0]));
    long opened = System.nanoTime();
    long cpu1 = processCpuNanos();
    FilterStoreBackend backend = new FilterStoreBackend(store, null);
    long described = System.nanoTime();
    long cpu2 = processCpuNanos();
    int filters = store.filterCount();
    try (Service service =
        Service.start(
            backend,
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            HttpInitializer.DEFAULT_MAX_BODY_BYTES)) {
      long listening = System.nanoTime();
      long cpu3 = processCpuNanos();
      long rss = BenchReport.rssBytes();
      long rssFile = BenchReport.rssFileBytes();
      long rssAnon = BenchReport.rssAnonBytes();
      System.out.println("listening on " + service.server().baseUrl());
      // wall ms, and in brackets the CPU ms of the whole process (all threads) in the same phase:
      // on a shared machine, wall time includes waiting for a core
      System.out.printf(
          Locale.ROOT,
          "probe: jvm_to_main_ms=%d open_ms=%.0f [cpu %.0f] describe_ms=%.0f [cpu %.0f] "
              + "http_start_ms=%.0f [cpu %.0f] filters=%d rss_mib=%.1f rss_file_mib=%.1f"
              + " rss_anon_mib=%.1f%n",
          jvmMs,
          (opened - mainNanos) / 1e6,
          (cpu1 - cpu0) / 1e6,
          (described - opened) / 1e6,
          (cpu2 - cpu1) / 1e6,
          (listening - described) / 1e6,
          (cpu3 - cpu2) / 1e6,
          filters,
          rss / 1048576.0,
          rssFile / 1048576.0,
          rssAnon / 1048576.0);
      System.out.flush();
    }
  }
}
