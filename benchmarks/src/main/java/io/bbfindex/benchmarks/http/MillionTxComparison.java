package io.bbfindex.benchmarks.http;

import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.benchmarks.harness.Filled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The part of {@code bench vs-core} at realistic size: a regtest chain of at least 1,000,000
 * transactions written by the real {@code bitcoind} ({@link MillionTxDatadir}, cached outside the
 * repository), Core ({@code -txindex -rest}, its txindex synced per {@code getindexinfo}) and
 * bbf-index's {@code serve} each on a copy of it, and wrk sweeping 8, 32 and 128 connections.
 *
 * <p>Like with like: bbf-index's {@code /v1/tx/<txid>/raw} against Core's {@code
 * /rest/tx/<txid>.bin} for present txids (the same bytes; checked on a sample); absent txids as
 * bbf-index's {@code GET /v1/tx/<txid>} (404) against Core's cheapest absent answer, {@code
 * /rest/tx/<txid>.bin} (404); and bbf-index's location answer {@code GET /v1/tx/<txid>} (200)
 * against Core's cheapest positive answer, which is again the raw transaction (Core has no
 * location-only answer). Every answer's status is counted by wrk's script and must be exactly 200
 * or exactly 404. Present txids are a fresh random sample of the generated ones each run.
 *
 * <p>Core runs with {@code -rpcworkqueue=1024}: with its default queue of 64 it answers 503 to part
 * of 128 connections' requests, which would measure the queue, not the lookups.
 */
final class MillionTxComparison {

  /** The connection count the headline ratios ({@code vs_core_1m_*_ratio}) are taken at. */
  static final int HEADLINE_CONNECTIONS = 32;

  /** What one run measures, and at what size. */
  record Setup(
      MillionTxDatadir.Size size,
      Path cacheDir,
      int seconds,
      int warmupSeconds,
      int rounds,
      List<Integer> connections,
      int sample) {
    static Setup of(boolean quick) {
      MillionTxDatadir.Size size = new MillionTxDatadir.Size(1_000_000, 10_000);
      return quick
          ? new Setup(size, MillionTxDatadir.cacheDir(size), 2, 2, 3, List.of(8, 32, 128), 100_000)
          : new Setup(
              size, MillionTxDatadir.cacheDir(size), 10, 5, 3, List.of(8, 32, 128), 200_000);
    }
  }

  /** What a target asks: the answer's expected status and the route on each server. */
  enum Kind {
    RAW("present raw", 200),
    ABSENT("absent", 404),
    LOCATION("present location", 200);

    final String label;
    final int status;

    Kind(String label, int status) {
      this.label = label;
      this.status = status;
    }

    String path(String txid, boolean core) {
      return core
          ? "/rest/tx/" + txid + ".bin"
          : this == RAW ? "/v1/tx/" + txid + "/raw" : "/v1/tx/" + txid;
    }
  }

  /** One wrk target. Core has no location answer: bbf-index's is set against Core's raw one. */
  record Target(Kind kind, boolean core) {
    String label() {
      return kind.label
          + (core
              ? " (core " + kind.path("<txid>", true)
              : " (bbf-index " + kind.path("<txid>", false))
          + ")";
    }
  }

  static final List<Target> TARGETS =
      List.of(
          new Target(Kind.RAW, false),
          new Target(Kind.RAW, true),
          new Target(Kind.ABSENT, false),
          new Target(Kind.ABSENT, true),
          new Target(Kind.LOCATION, false));

  /** wrk's report plus the statuses its script counted. */
  record Run(WrkRun wrk, Map<Integer, Long> statuses) {
    /** "all 200" or "all 404"; an IOException unless every answer had {@code status}. */
    String check(String label, int status) throws IOException {
      if (!statuses.keySet().equals(java.util.Set.of(status))
          || statuses.getOrDefault(status, 0L) != wrk.requests()
          || wrk.socketErrors() > 0) {
        throw new IOException(
            label
                + ": expected every answer "
                + status
                + ", got "
                + statuses
                + " of "
                + wrk.requests()
                + " requests, "
                + wrk.socketErrors()
                + " socket errors");
      }
      return "all " + status;
    }
  }

  /**
   * Appended to {@link WrkRun#LUA}: counts the answers by status in each thread and prints the
   * totals as {@code status NNN: COUNT} lines after wrk's report.
   */
  static final String STATUS_LUA =
      """
      local threads = {}
      local listed_setup = setup
      function setup(thread)
        listed_setup(thread)
        table.insert(threads, thread)
      end
      statuses = {}
      function response(status, headers, body)
        statuses[status] = (statuses[status] or 0) + 1
      end
      function done(summary, latency, requests)
        local total = {}
        for _, t in ipairs(threads) do
          for k, v in pairs(t:get("statuses")) do total[k] = (total[k] or 0) + v end
        end
        for k, v in pairs(total) do io.write(string.format("status %d: %d\\n", k, v)) end
      end
      """;

  private static final Pattern STATUS =
      Pattern.compile("^status (\\d+): (\\d+)$", Pattern.MULTILINE);

  private MillionTxComparison() {}

  /** Parses the status lines of {@link #STATUS_LUA}. */
  static Map<Integer, Long> statuses(String report) {
    Map<Integer, Long> counts = new TreeMap<>();
    Matcher m = STATUS.matcher(report);
    while (m.find()) {
      counts.put(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)));
    }
    return counts;
  }

  /** Writes the counting script into {@code dir}. */
  static Path writeScript(Path dir) throws IOException {
    return Files.writeString(
        dir.resolve("bbf-requests-status.lua"), WrkRun.LUA + STATUS_LUA, StandardCharsets.UTF_8);
  }

  /** One wrk run of {@code requests} against {@code base}, its answers' statuses checked. */
  static Run wrk(Path wrk, Path script, String base, Path requests, int connections, int seconds)
      throws IOException, InterruptedException {
    String report =
        WrkRun.report(wrk, script, base, requests, null, false, 1, connections, seconds);
    return new Run(WrkRun.parse(report), statuses(report));
  }

  /** The servers of a run. */
  record Servers(ServerProcess bbf, CoreRestNode core) {
    String base(Target t) {
      return t.core() ? core.baseUrl() : bbf.baseUrl();
    }
  }

  /** Request files by target. */
  static Map<Target, Path> requestFiles(Path dir, MillionSample sample) throws IOException {
    Files.createDirectories(dir);
    Map<Target, Path> files = new LinkedHashMap<>();
    for (Target t : TARGETS) {
      List<String> ids =
          switch (t.kind()) {
            case RAW -> sample.raw();
            case ABSENT -> sample.absent();
            case LOCATION -> sample.location();
          };
      List<String> lines = new ArrayList<>(ids.size());
      for (String id : ids) {
        lines.add(t.kind().path(id, t.core()));
      }
      files.put(
          t,
          Files.write(
              dir.resolve(t.kind().name().toLowerCase(Locale.ROOT) + (t.core() ? "-core" : "-bbf")),
              lines));
    }
    return files;
  }

  /**
   * Generates or reuses the data directory, starts both servers on copies of it, checks their
   * answers and sweeps the connection counts; tables, per-connection lines and the summary lines go
   * to {@code r}.
   */
  static void run(Setup s, BenchReport r, Path tmp, Path wrk, Path bitcoind)
      throws IOException, InterruptedException {
    long start = System.nanoTime();
    Files.createDirectories(tmp);
    r.line("");
    r.line(
        "1M part: a chain of >= %,d txs written by %s, cache %s",
        s.size().txs(), bitcoind, s.cacheDir());
    MillionTxDatadir.Generated g = MillionTxDatadir.ensure(bitcoind, s.cacheDir(), s.size());
    r.line(
        g.seconds() > 0
            ? String.format(
                Locale.ROOT,
                "1M part: generated in %.1f s: %,d txs on the chain (getchaintxstats), %,d of them"
                    + " built here",
                g.seconds(),
                g.chainTxs(),
                g.count())
            : String.format(
                Locale.ROOT,
                "1M part: cache reused: %,d txs on the chain (getchaintxstats), %,d of them built"
                    + " here",
                g.chainTxs(),
                g.count()));
    r.summary("vs_core_1m_chain_txs", g.chainTxs());
    r.summary("vs_core_1m_generate_seconds", g.seconds());
    Path core = tmp.resolve("1m-core/regtest");
    Path bbf = tmp.resolve("1m-bbf/regtest");
    copyAndIngest(r, tmp, g.datadir(), core, bbf);
    try (CoreRestNode node =
            CoreRestNode.start(
                bitcoind,
                true,
                core,
                tmp.resolve("1m-bitcoind.log"),
                List.of("-rpcworkqueue=1024"));
        ServerProcess serve =
            ServerProcess.serve(
                List.of(),
                ServerProcess.serveArgs(
                    bbf, tmp.resolve("1m-filters"), tmp.resolve("1m-serve-work")),
                tmp.resolve("1m-serve.log"),
                300)) {
      long height = node.awaitTxindexSynced(Duration.ofMinutes(5));
      serve.awaitReady(Duration.ofMinutes(5));
      r.line(
          "1M part: Core's txindex synced at height %d (getindexinfo); bbf-index %s (%s), Core %s",
          height, serve.baseUrl(), serve.transport(), node.baseUrl());
      sweep(s, r, tmp, wrk, g, new Servers(serve, node));
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    r.line("1M part: %.0f s in all (generation or cache, copies, ingest, checks, sweep)", seconds);
    r.summary("vs_core_1m_part_seconds", seconds);
  }

  /**
   * Copies the cached data directory for Core and for bbf-index, and ingests bbf-index's. WHY
   * copies: bitcoind writes into its data directory at every start (logs, LevelDB logs and
   * compactions, the last blk file), and a run that is killed would leave the cache half written.
   */
  private static void copyAndIngest(BenchReport r, Path tmp, Path cache, Path core, Path bbf)
      throws IOException, InterruptedException {
    long copyStart = System.nanoTime();
    MillionTxDatadir.copyTree(cache, core);
    MillionTxDatadir.copyTree(cache, bbf);
    double ingest =
        ServerProcess.ingest(
            bbf, tmp.resolve("1m-filters"), tmp.resolve("1m-work"), tmp.resolve("1m-ingest.log"));
    r.line(
        "1M part: two copies of the data directory in %.1f s; bbf-index ingest %.1f s",
        (System.nanoTime() - copyStart) / 1e9 - ingest, ingest);
  }

  /** Draws the sample, checks the answers, measures every connection count; the summary lines. */
  private static void sweep(
      Setup s, BenchReport r, Path tmp, Path wrk, MillionTxDatadir.Generated g, Servers servers)
      throws IOException, InterruptedException {
    long seed = System.nanoTime();
    MillionSample sample = MillionSample.draw(g.txids(), s.sample(), seed);
    int checked = sample.check(servers.bbf().baseUrl(), servers.core().baseUrl(), 100);
    r.line(
        "1M part: sample of %,d raw + %,d location + %,d absent ids (seed %d); %d answers checked"
            + " one by one: exact status, Core's and bbf-index's raw bytes identical and hashing"
            + " to the txid, the location naming it",
        s.sample(), s.sample(), s.sample(), seed, checked);
    Map<Target, Path> files = requestFiles(tmp.resolve("1m-requests"), sample);
    Path script = writeScript(tmp);
    Map<Integer, Map<Kind, Double>> ratios = new LinkedHashMap<>();
    for (int c : s.connections()) {
      ratios.put(
          c, atConnections(s, r, wrk, script, files, servers, c, c == s.connections().get(0)));
    }
    summarize(r, ratios);
  }

  /** The headline and per-connection summary lines. */
  private static void summarize(BenchReport r, Map<Integer, Map<Kind, Double>> ratios) {
    int at =
        ratios.containsKey(HEADLINE_CONNECTIONS)
            ? HEADLINE_CONNECTIONS
            : ratios.keySet().iterator().next();
    Map<Kind, Double> headline = Filled.entry(ratios, at);
    r.line(
        "1M part, at %d connections (the headline; summary lines _cN per count): absent %.2fx"
            + " Core's /rest/tx .bin 404, present raw %.2fx Core's /rest/tx .bin 200, location"
            + " %.2fx Core's cheapest positive answer (the raw tx, /rest/tx .bin)",
        at,
        Filled.entry(headline, Kind.ABSENT),
        Filled.entry(headline, Kind.RAW),
        Filled.entry(headline, Kind.LOCATION));
    r.summary("vs_core_1m_neg_ratio", Filled.entry(headline, Kind.ABSENT));
    r.summary("vs_core_1m_pos_raw_ratio", Filled.entry(headline, Kind.RAW));
    r.summary("vs_core_1m_location_over_core_raw_ratio", Filled.entry(headline, Kind.LOCATION));
    for (Map.Entry<Integer, Map<Kind, Double>> e : ratios.entrySet()) {
      r.summary("vs_core_1m_neg_ratio_c" + e.getKey(), Filled.entry(e.getValue(), Kind.ABSENT));
      r.summary("vs_core_1m_pos_raw_ratio_c" + e.getKey(), Filled.entry(e.getValue(), Kind.RAW));
      r.summary(
          "vs_core_1m_location_over_core_raw_ratio_c" + e.getKey(),
          Filled.entry(e.getValue(), Kind.LOCATION));
    }
  }

  /** Warms up (to steady state at the first count), runs the rounds, prints the table; ratios. */
  private static Map<Kind, Double> atConnections(
      Setup s,
      BenchReport r,
      Path wrk,
      Path script,
      Map<Target, Path> files,
      Servers servers,
      int connections,
      boolean first)
      throws IOException, InterruptedException {
    Measure measure =
        (t, seconds) ->
            checked(
                t, wrk(wrk, script, servers.base(t), Filled.entry(files, t), connections, seconds));
    for (Target t : TARGETS) {
      VsCoreBench.Slice slice = () -> measure.run(t, s.warmupSeconds()).wrk().requestsPerSecond();
      if (first) { // the JIT, Core's caches and the page cache come to their steady state once
        VsCoreBench.warmUp(r, t.label(), s.warmupSeconds(), slice);
      } else {
        slice.requestsPerSecond();
      }
    }
    Map<Target, List<Run>> runs = new LinkedHashMap<>();
    for (int round = 0; round < s.rounds(); round++) {
      for (Target t : VsCoreBench.roundOrder(TARGETS, round)) {
        runs.computeIfAbsent(t, k -> new ArrayList<>()).add(measure.run(t, s.seconds()));
      }
    }
    table(s, r, connections, runs);
    Map<Kind, Double> ratios = new EnumMap<>(Kind.class);
    for (Kind k : Kind.values()) {
      ratios.put(k, BenchReport.median(roundRatios(runs, k)));
    }
    r.line(
        "1M part, %d connections: bbf-index over Core in each round (measured back to back): absent"
            + " %s, present raw %s, location over Core's raw %s; medians %.2fx, %.2fx, %.2fx",
        connections,
        Arrays.toString(roundRatios(runs, Kind.ABSENT)),
        Arrays.toString(roundRatios(runs, Kind.RAW)),
        Arrays.toString(roundRatios(runs, Kind.LOCATION)),
        Filled.entry(ratios, Kind.ABSENT),
        Filled.entry(ratios, Kind.RAW),
        Filled.entry(ratios, Kind.LOCATION));
    return ratios;
  }

  /** One checked wrk run of a target. */
  @FunctionalInterface
  private interface Measure {
    Run run(Target t, int seconds) throws IOException, InterruptedException;
  }

  /** {@code run}, after checking that every answer had {@code t}'s status. */
  private static Run checked(Target t, Run run) throws IOException {
    run.check(t.label(), t.kind().status);
    return run;
  }

  /**
   * bbf-index's requests/s over Core's for {@code kind} in each round; the location answer over
   * Core's raw one (its cheapest positive answer).
   */
  static double[] roundRatios(Map<Target, List<Run>> runs, Kind kind) {
    List<Run> bbf = Filled.entry(runs, new Target(kind, false));
    List<Run> core = Filled.entry(runs, new Target(kind == Kind.LOCATION ? Kind.RAW : kind, true));
    double[] ratios = new double[bbf.size()];
    for (int i = 0; i < ratios.length; i++) {
      ratios[i] =
          Math.round(
                  100
                      * bbf.get(i).wrk().requestsPerSecond()
                      / core.get(i).wrk().requestsPerSecond())
              / 100.0;
    }
    return ratios;
  }

  private static void table(Setup s, BenchReport r, int connections, Map<Target, List<Run>> runs)
      throws IOException {
    List<List<String>> rows = new ArrayList<>();
    for (Target t : TARGETS) {
      List<Run> list = Filled.entry(runs, t);
      long requests = 0;
      for (Run run : list) {
        requests += run.wrk().requests();
      }
      rows.add(
          List.of(
              t.label(),
              String.format(Locale.ROOT, "%,.0f", median(list, WrkRun::requestsPerSecond)),
              String.format(Locale.ROOT, "%.2f", median(list, WrkRun::p50Millis)),
              String.format(Locale.ROOT, "%.2f", median(list, WrkRun::p99Millis)),
              String.format(Locale.ROOT, "%,d", requests),
              list.get(0).check(t.label(), t.kind().status)));
    }
    r.table(
        String.format(
            Locale.ROOT,
            "1M part: wrk -t1 -c%d, median of %d round(s) of %d s",
            connections,
            s.rounds(),
            s.seconds()),
        List.of("target", "requests/s", "p50 ms", "p99 ms", "requests", "answers"),
        rows);
  }

  private static double median(List<Run> runs, java.util.function.ToDoubleFunction<WrkRun> f) {
    return BenchReport.median(
        runs.stream().mapToDouble(run -> f.applyAsDouble(run.wrk())).toArray());
  }
}
