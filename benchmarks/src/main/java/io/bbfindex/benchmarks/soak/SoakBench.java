package io.bbfindex.benchmarks.soak;

import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.benchmarks.harness.BenchTempDir;
import io.bbfindex.benchmarks.harness.ProjectHome;
import io.bbfindex.benchmarks.http.ServerProcess;
import io.bbfindex.follow.regtest.RegtestNode;
import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bbf-index bench soak [--quick]}: mixed traffic ({@link MixedTraffic}: present, absent,
 * batch, status, metrics, every answer checked) at saturation against {@code serve} in its own JVM
 * for 10 minutes (1 with {@code --quick}) after a warm-up, printing errors, RSS, heap, direct
 * memory and open files of the server at intervals. With {@code $BITCOIND} set the server follows a
 * real regtest node that is mined and sent transactions throughout ({@code serve --follow});
 * without it, it serves the demo's data directory. Passes with 0 errors and RSS growth after
 * warm-up under 10 %.
 */
@Command(
    name = "soak",
    description = {
      "Mixed traffic at saturation against 'serve' (following a regtest node being mined when"
          + " $BITCOIND is set) for 10 min (1 with --quick); errors, RSS, heap, direct memory and"
          + " open files printed at intervals; 0 errors and RSS growth < 10 % required."
    })
public final class SoakBench implements Callable<Integer> {

  static final double MAX_RSS_GROWTH_PCT = 10.0;

  /**
   * The server JVM's heap as deploy/systemd sets it, fixed and touched at start: a JVM left to size
   * its heap (a quarter of the machine's memory) grows its RSS with every heap expansion, which
   * would hide a native or off-heap leak behind a plain heap resize. Heap use is sampled apart.
   */
  static final List<String> SERVER_JVM = List.of("-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch");

  @Option(names = "--quick", description = "1 min after a 20 s warm-up (default 10 min, 60 s)")
  boolean quick;

  @Option(
      names = "--seconds",
      description = "measured duration in seconds (overrides the default of the mode)")
  @Nullable Integer seconds;

  @Option(names = "--warmup", description = "warm-up seconds before the first sample")
  @Nullable Integer warmup;

  @Option(names = "--clients", description = "concurrent closed-loop clients (default: 4 per core)")
  @Nullable Integer clients;

  @Option(names = "--no-follow", description = "serve the demo datadir even when $BITCOIND is set")
  boolean noFollow;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "this help")
  boolean help;

  SoakBench() {}

  @Override
  public Integer call() throws Exception {
    Path home = ProjectHome.home();
    int measured = seconds != null ? seconds : quick ? 60 : 600;
    int warm = warmup != null ? warmup : quick ? 20 : 60;
    int n = clients != null ? clients : 4 * Runtime.getRuntime().availableProcessors();
    if (measured < 1 || warm < 0 || n < 1) {
      System.err.println("bbf-index bench soak: --seconds and --clients must be positive");
      return 2;
    }
    BenchReport r = new BenchReport(quick ? "soak-quick" : "soak", System.out);
    boolean passed;
    try (BenchTempDir tmp = BenchTempDir.create("bbf-bench-soak-")) {
      passed = run(r, tmp.path(), measured, warm, n);
    }
    r.finish(home);
    return passed ? 0 : 1;
  }

  private boolean run(BenchReport r, Path tmp, int measured, int warm, int n) throws Exception {
    Optional<Path> bitcoind = noFollow ? Optional.empty() : RegtestNode.binary(RegtestNode.CURRENT);
    r.line(
        "bbf-index bench soak%s: %d closed-loop clients, %d s warm-up, %d s measured, mix %d%%"
            + " present / %d%% absent / %d%% batch of 100 / %d%% status / %d%% metrics",
        quick ? " --quick" : "",
        n,
        warm,
        measured,
        MixedTraffic.PRESENT,
        MixedTraffic.ABSENT,
        MixedTraffic.BATCH,
        MixedTraffic.STATUS,
        100
            - MixedTraffic.PRESENT
            - MixedTraffic.ABSENT
            - MixedTraffic.BATCH
            - MixedTraffic.STATUS);
    r.environment();
    if (bitcoind.isPresent()) {
      try (RegtestNode node = RegtestNode.start(bitcoind.get(), true)) {
        List<String> present = FollowedNode.prepare(node);
        r.line(
            "server: serve --follow of a regtest node (%s), mined and sent a transaction every"
                + " %d s during the run; present ids: the coinbases of blocks 1-%d",
            bitcoind.get(), FollowedNode.BLOCK_SECONDS, present.size());
        try (ServerProcess server = FollowedNode.serve(node, tmp);
            FollowedNode miner = FollowedNode.mine(node)) {
          return soak(r, server, present, measured, warm, n, miner::errors);
        }
      }
    }
    r.line(
        "server: serve over the demo datadir (%s)%s",
        Archive.MAINNET_LDB.baseName,
        noFollow ? "" : "; $BITCOIND not set, so no node is followed");
    Path datadir = Fixtures.extract(Archive.MAINNET_LDB, tmp.resolve("demo"));
    List<String> present =
        Fixtures.txRows(Archive.MAINNET_LDB).stream().map(Fixtures.TxRow::txidHex).toList();
    try (ServerProcess server =
        ServerProcess.serve(
            SERVER_JVM,
            ServerProcess.serveArgs(datadir, tmp.resolve("filters"), tmp.resolve("work")),
            tmp.resolve("serve.log"),
            300)) {
      return soak(r, server, present, measured, warm, n, () -> 0L);
    }
  }

  /** Counts errors of a side activity (the miner) that are errors of the run too. */
  interface SideErrors {
    long errors();
  }

  private static boolean soak(
      BenchReport r,
      ServerProcess server,
      List<String> present,
      int measured,
      int warm,
      int n,
      SideErrors side)
      throws Exception {
    int interval = Math.max(1, Math.min(30, measured / 10));
    List<List<String>> rows = new ArrayList<>();
    ServerSample first;
    ServerSample last;
    long startRequests;
    long start;
    try (HttpClient http = HttpClient.newHttpClient();
        MixedTraffic traffic = MixedTraffic.start(server.baseUrl(), present, n)) {
      TimeUnit.SECONDS.sleep(warm);
      first = ServerSample.of(server.pid(), server.baseUrl(), http);
      startRequests = traffic.requests();
      start = System.nanoTime();
      rows.add(row(0, traffic, side, first, 0));
      printRow(r, rows.getLast());
      last = first;
      long prevRequests = startRequests;
      for (int t = interval; t <= measured; t += interval) {
        long due = start + TimeUnit.SECONDS.toNanos(t);
        TimeUnit.NANOSECONDS.sleep(Math.max(0, due - System.nanoTime()));
        last = ServerSample.of(server.pid(), server.baseUrl(), http);
        long done = traffic.requests();
        rows.add(row(t, traffic, side, last, (done - prevRequests) / (double) interval));
        printRow(r, rows.getLast());
        prevRequests = done;
      }
      traffic.close();
      long requests = traffic.requests() - startRequests;
      double elapsed = (System.nanoTime() - start) / 1e9;
      long errors = traffic.errors() + side.errors();
      for (String e : traffic.firstErrors()) {
        r.line("error: %s", e);
      }
      return summarize(r, rows, requests, elapsed, errors, first, last);
    }
  }

  /** The resources table and the summary lines; whether the run passed. */
  private static boolean summarize(
      BenchReport r,
      List<List<String>> rows,
      long requests,
      double elapsed,
      long errors,
      ServerSample first,
      ServerSample last) {
    double rssGrowth = 100.0 * (last.rssBytes() - first.rssBytes()) / first.rssBytes();
    r.table(
        "server resources during the run (t: seconds after the warm-up)",
        List.of(
            "t s",
            "req/s",
            "errors",
            "RSS MiB",
            "heap MiB",
            "direct MiB",
            "Netty direct MiB",
            "open files"),
        rows);
    r.line("load average at the end: %s", BenchReport.loadAverage());
    r.summary("errors", errors);
    r.summary("requests", requests);
    r.summary("requests_per_second", requests / elapsed);
    r.summary("rss_start_mib", first.rssBytes() / 1048576.0);
    r.summary("rss_end_mib", last.rssBytes() / 1048576.0);
    r.summary("rss_growth_pct", rssGrowth);
    r.summary("heap_end_mib", last.heapBytes() / 1048576.0);
    r.summary("direct_start_mib", first.directBytes() / 1048576.0);
    r.summary("direct_end_mib", last.directBytes() / 1048576.0);
    r.summary("netty_direct_start_mib", first.nettyDirectBytes() / 1048576.0);
    r.summary("netty_direct_end_mib", last.nettyDirectBytes() / 1048576.0);
    r.summary("open_files_start", first.openFiles());
    r.summary("open_files_end", last.openFiles());
    boolean ok = errors == 0 && rssGrowth < MAX_RSS_GROWTH_PCT;
    r.summary("passed", ok ? "yes" : "no");
    return ok;
  }

  private static List<String> row(
      int t, MixedTraffic traffic, SideErrors side, ServerSample s, double rps) {
    return List.of(
        Integer.toString(t),
        String.format(Locale.ROOT, "%,.0f", rps),
        Long.toString(traffic.errors() + side.errors()),
        String.format(Locale.ROOT, "%.1f", s.rssBytes() / 1048576.0),
        String.format(Locale.ROOT, "%.1f", s.heapBytes() / 1048576.0),
        String.format(Locale.ROOT, "%.1f", s.directBytes() / 1048576.0),
        String.format(Locale.ROOT, "%.1f", s.nettyDirectBytes() / 1048576.0),
        Long.toString(s.openFiles()));
  }

  private static void printRow(BenchReport r, List<String> row) {
    r.line(
        "t=%ss req/s=%s errors=%s rss_mib=%s heap_mib=%s direct_mib=%s netty_direct_mib=%s"
            + " open_files=%s",
        row.toArray());
  }
}
