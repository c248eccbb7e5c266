package io.bbfindex.benchmarks.scale;

import io.bbfindex.app.cli.StartWhileOpening;
import io.bbfindex.app.http.HttpInitializer;
import io.bbfindex.app.http.Service;
import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.benchmarks.store.FilterStoreBackend;
import io.bbfindex.ingest.store.FilterStore;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Started in a fresh JVM by {@link ScaleBench}: does what {@code serve} does with a built filter
 * store before it prints {@code listening on http://HOST:PORT}, through the same {@link
 * StartWhileOpening#start}: the store is opened mapped first and validated ({@code
 * FilterStore.openMappedFirst}, as {@code FilterBuilder.ensureBuilt} opens it for serve; its lookup
 * filters described for the gauges) on one thread while the HTTP server starts on 127.0.0.1, port
 * 0, on this one; when both are done it prints that line, waits until the verified in-memory copies
 * of the filters answer instead of the mappings, prints a breakdown, and exits. What it cannot do
 * at scale is open a mainnet block index ({@code NodeIndex}): a synthetic store has none.
 *
 * <p>Output: {@code listening on ...}, then {@code probe: jvm_to_main_ms=.. ready_ms=.. [cpu ..]
 * open_ms=.. http_start_ms=.. copied_ms=.. filters=.. rss_listening_mib=.. rss_mib=..
 * rss_file_mib=.. rss_anon_mib=..}: ready_ms is main to listening (wall) with the CPU time of the
 * whole process in that span; open_ms and http_start_ms are the wall times of the two parts, which
 * overlap; copied_ms is main to the copies answering; the memory the process holds once it listens
 * and once the copies answer and the mappings are freed (VmRSS of /proc/self/status, and its
 * file-backed and anonymous parts: the verified in-memory copies of the filters are anonymous
 * memory).
 */
public final class StartupProbe {

  private StartupProbe() {}

  /**
   * Longer than the grace period after which the mappings are freed once the copies answer ({@link
   * FilterStore#MAPPING_GRACE}), by a margin for the thread that frees them.
   */
  private static final long MAPPING_RELEASE_MS = FilterStore.MAPPING_GRACE.toMillis() + 500;

  /** CPU time of the whole process (every thread), or -1 where the JVM does not report it. */
  static long processCpuNanos() {
    return ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime()
        : -1;
  }

  /**
   * The second argument that starts the old way, for a baseline: the store opened first, the HTTP
   * server started after it.
   */
  static final String SEQUENTIAL = "--sequential";

  private static Service startAfterOpening(
      Path store, FilterStoreBackend[] opened, long[] openNanos, long[] httpNanos)
      throws java.io.IOException {
    long s = System.nanoTime();
    opened[0] = new FilterStoreBackend(FilterStore.open(store), null);
    long t = System.nanoTime();
    openNanos[0] = t - s;
    Service started =
        Service.start(
            opened[0],
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            HttpInitializer.DEFAULT_MAX_BODY_BYTES);
    httpNanos[0] = System.nanoTime() - t;
    return started;
  }

  /**
   * As serve starts: the store opened from its mappings on one thread while the HTTP server starts
   * on another ({@code StartWhileOpening.start}).
   */
  private static Service startWhileOpening(
      Path store, FilterStoreBackend[] opened, long[] openNanos, long[] httpNanos)
      throws Exception {
    return StartWhileOpening.start(
        () -> {
          long s = System.nanoTime();
          opened[0] = new FilterStoreBackend(FilterStore.openMappedFirst(store), null);
          openNanos[0] = System.nanoTime() - s;
          return opened[0];
        },
        backend -> {
          long s = System.nanoTime();
          Service started =
              Service.start(
                  backend,
                  new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                  HttpInitializer.DEFAULT_MAX_BODY_BYTES);
          httpNanos[0] = System.nanoTime() - s;
          return started;
        });
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 1 || args.length > 2 || (args.length == 2 && !args[1].equals(SEQUENTIAL))) {
      System.err.println("usage: StartupProbe FILTER_STORE_DIR [" + SEQUENTIAL + "]");
      System.exit(2);
    }
    boolean sequential = args.length == 2;
    long mainNanos = System.nanoTime();
    long jvmMs = System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime();
    long cpu0 = processCpuNanos();
    long[] openNanos = new long[1];
    long[] httpNanos = new long[1];
    FilterStoreBackend[] opened = new FilterStoreBackend[1];
    try (Service service =
        sequential
            ? startAfterOpening(Path.of(args[0]), opened, openNanos, httpNanos)
            : startWhileOpening(Path.of(args[0]), opened, openNanos, httpNanos)) {
      long listening = System.nanoTime();
      long cpu1 = processCpuNanos();
      System.out.println("listening on " + service.server().baseUrl());
      System.out.flush();
      double rssListeningMib = BenchReport.rssBytes() / 1048576.0;
      // serve answers from the verified mappings until the copies are in: the memory held from
      // then on is what serving costs
      if (!opened[0].store().awaitCopies(java.time.Duration.ofMinutes(2))) {
        throw new IllegalStateException(
            "the filter copies did not come in: " + opened[0].store().changedOnDisk());
      }
      long copied = System.nanoTime();
      // the mappings are freed a grace period after the copies answer (ServedFilters)
      Thread.sleep(MAPPING_RELEASE_MS);
      long rss = BenchReport.rssBytes();
      long rssFile = BenchReport.rssFileBytes();
      long rssAnon = BenchReport.rssAnonBytes();
      // wall ms, and in brackets the CPU ms of the whole process (all threads) in the same span:
      // on a shared machine, wall time includes waiting for a core
      System.out.printf(
          Locale.ROOT,
          "probe: jvm_to_main_ms=%d ready_ms=%.0f [cpu %.0f] open_ms=%.0f http_start_ms=%.0f"
              + " copied_ms=%.0f filters=%d rss_listening_mib=%.1f rss_mib=%.1f rss_file_mib=%.1f"
              + " rss_anon_mib=%.1f%n",
          jvmMs,
          (listening - mainNanos) / 1e6,
          (cpu1 - cpu0) / 1e6,
          openNanos[0] / 1e6,
          httpNanos[0] / 1e6,
          (copied - mainNanos) / 1e6,
          opened[0].store().filterCount(),
          rssListeningMib,
          rss / 1048576.0,
          rssFile / 1048576.0,
          rssAnon / 1048576.0);
      System.out.flush();
    }
  }
}
