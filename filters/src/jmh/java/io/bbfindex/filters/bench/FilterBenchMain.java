package io.bbfindex.filters.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * {@code ./bbf-index bench filters|paper [--quick]}: runs the JMH benchmarks of this package
 * through JMH's Runner API (one fork per benchmark and parameter set), prints human tables, writes
 * the raw JMH JSON to {@code bench-results/}, and ends with {@code summary: NAME VALUE} lines
 * (ratios of times from the same run wherever a comparison is meant).
 *
 * <p>{@code filters}: {@link FilterBenchmark} and {@link LineReadBenchmark}, with the filters'
 * speed targets. {@code paper}: the paper's Fig. 5 and extra bits ({@link FprExperiment}, by
 * counting), Fig. 6 and Fig. 7 ({@link PaperBenchmark}), with PNG plots in {@code docs/img/}.
 */
public final class FilterBenchMain {

  /** JVM flags of every fork: the Vector API, a heap for n = 10^8 key sets, no AWT display. */
  static final String[] FORK_JVM_ARGS = {
    "--add-modules=jdk.incubator.vector",
    "-Xms1g",
    "-Xmx3g",
    "-XX:+UseParallelGC",
    "-Djava.awt.headless=true",
    "--sun-misc-unsafe-memory-access=allow",
    // Blocking JIT compilation: on a loaded 2-core machine the background compiler can lag the
    // short warmups by seconds, and the Vector API interpreted is orders of magnitude slower than
    // compiled. With it, the warmup ends with the code C2 compiled; the code is the same.
    "-XX:-BackgroundCompilation"
  };

  private static final String PKG = "io.bbfindex.filters.bench.";

  /** Fork, warmup and measurement settings: full, or quick (to fit in 5 minutes on 2 cores). */
  record Settings(
      boolean quick, int warmups, TimeValue warmupTime, int iterations, TimeValue iterationTime) {
    static Settings of(boolean quick) {
      return quick
          ? new Settings(true, 1, TimeValue.milliseconds(500), 2, TimeValue.milliseconds(500))
          : new Settings(false, 2, TimeValue.seconds(1), 3, TimeValue.seconds(1));
    }

    String describe() {
      return String.format(
          "1 fork, %d x %s warmup, %d x %s measurement per benchmark%s%ntimes are CPU-time ns: per"
              + " iteration, JMH's wall-clock time x the share of a CPU the benchmark thread got"
              + " (1.0 on a quiet machine; see CpuShareProfiler); the best iteration counts",
          warmups, warmupTime, iterations, iterationTime, quick ? " (--quick)" : "");
    }
  }

  /** One benchmark result: method, parameters, time per key and its error, hit ratio. */
  /**
   * One benchmark result: method, parameters, JMH's wall-clock score and error, hit ratio, the mean
   * share of a CPU the benchmark thread got ({@link CpuShareProfiler}), and {@link #nsPerOp()}, the
   * figure every table and ratio uses: per measurement iteration, wall-clock time x that
   * iteration's CPU share, and of those the smallest. Interference from other processes only ever
   * adds time, and one starved iteration (seen: 100x, in a {@code bench filters} run on the shared
   * machine) would dominate a mean.
   */
  record Row(
      String benchmark,
      Map<String, String> params,
      double wallNs,
      double error,
      double hitRatio,
      double cpuShare,
      double nsPerOp) {
    String param(String name) {
      return params.get(name);
    }

    double mlps() {
      return 1e3 / nsPerOp();
    }
  }

  private final Settings settings;
  private final Path home;
  private final PrintStream out = System.out;
  private final List<RunResult> raw = new ArrayList<>();
  private final List<Row> rows = new ArrayList<>();
  private final Map<String, String> summary = new LinkedHashMap<>();

  FilterBenchMain(Settings settings, Path home) {
    this.settings = settings;
    this.home = home;
  }

  public static void main(String[] args) throws Exception {
    Locale.setDefault(Locale.ROOT);
    String suite = null;
    boolean quick = false;
    for (String a : args) {
      switch (a) {
        case "--quick" -> quick = true;
        case "filters", "paper" -> suite = a;
        case "-h", "--help" -> help();
        default -> usage("unknown argument: " + a);
      }
    }
    if (suite == null) {
      usage("name a suite");
    }
    Path home = Path.of(System.getProperty("bbf.home", ".")).toAbsolutePath().normalize();
    FilterBenchMain main = new FilterBenchMain(Settings.of(quick), home);
    Instant start = Instant.now();
    if (suite.equals("filters")) {
      main.filters();
    } else {
      main.paper();
    }
    Path json = main.writeJson(suite, start);
    Duration took = Duration.between(start, Instant.now());
    main.out.printf(
        "%nraw JMH results: %s%nwall time: %d min %02d s%n%n",
        json, took.toMinutes(), took.toSecondsPart());
    main.summary.put("wall_seconds", String.valueOf(took.toSeconds()));
    main.summary.put(
        "cpu_share_min",
        fmt(
            main.rows.stream()
                .mapToDouble(Row::cpuShare)
                .filter(d -> !Double.isNaN(d))
                .min()
                .orElse(Double.NaN)));
    main.summary.forEach((k, v) -> main.out.println("summary: " + k + " " + v));
  }

  private static void help() {
    System.out.print(
        """
        usage: ./bbf-index bench filters|paper [--quick]

          filters   JMH: the BBF (SIMD and scalar kernels) against a standard Bloom filter, OMBF,
                    two-bit Bloom, cuckoo filter, Guava and FastFilter; lookups in cache and in DRAM
          paper     the paper's Fig. 5, 6, 7 and extra-bits figures, with PNG plots
          --quick   fewer forks and iterations (under 5 minutes on 2 cores)

        Prints tables and 'summary: NAME VALUE' lines; raw JMH results go to bench-results/.
        """);
    System.exit(0);
  }

  private static void usage(String why) {
    System.err.println("bbf-index bench: " + why);
    System.err.println("usage: bench filters|paper [--quick]");
    System.exit(2);
  }

  // ---------------------------------------------------------------------------------------------
  // bench filters

  private static final String[] ALL_TYPES = {
    "BBF_SIMD",
    "BBF_SCALAR",
    "BBF_SIMD_LW64",
    "BLOOM_K8",
    "OMBF",
    "TWO_BIT",
    "CUCKOO",
    "GUAVA",
    "FASTFILTER_BLOCKED"
  };
  private static final String CACHE_N = "100000";
  private static final String DRAM_N = "10000000";
  private static final String LINE_SAME_SIZE = "16777216";
  private static final String LINE_DRAM = "1073741824";

  void filters() throws RunnerException, IOException {
    boolean q = settings.quick;
    out.println("bench filters: " + settings.describe());
    out.println(
        "keys: 32 bytes, seeded; 10 bits a key; n = 1e5 (in cache) and 1e7 (beyond the caches'"
            + " reach); times are ns per key (lower is better)");
    out.println();
    String[] dramTypes =
        q
            ? new String[] {
              "BBF_SIMD", "BBF_SCALAR", "BBF_SIMD_LW64", "BLOOM_K8", "FASTFILTER_BLOCKED"
            }
            : ALL_TYPES;
    String[] batchTypes =
        q
            ? new String[] {"BBF_SIMD", "BBF_SIMD_LW64"}
            : new String[] {"BBF_SIMD", "BBF_SCALAR", "BBF_SIMD_LW64", "BLOOM_K8", "OMBF"};
    for (String method : new String[] {"positive", "negative"}) {
      for (String type : ALL_TYPES) {
        run("FilterBenchmark", method, Map.of("type", type, "n", CACHE_N));
      }
    }
    for (String method : new String[] {"positive", "negative"}) {
      for (String type : dramTypes) {
        run("FilterBenchmark", method, Map.of("type", type, "n", DRAM_N));
      }
    }
    for (String n : new String[] {CACHE_N, DRAM_N}) {
      for (String method : new String[] {"positiveLoop", "negativeLoop"}) {
        for (String type : n.equals(CACHE_N) ? ALL_TYPES : dramTypes) {
          run("FilterBenchmark", method, Map.of("type", type, "n", n));
        }
      }
    }
    for (String n : new String[] {CACHE_N, DRAM_N}) {
      for (String method : new String[] {"positiveBatch", "negativeBatch"}) {
        for (String type : batchTypes) {
          run("FilterBenchmark", method, Map.of("type", type, "n", n));
        }
      }
    }
    run("FilterBenchmark", "negativeBatchBooleans", Map.of("type", "BBF_SIMD", "n", DRAM_N));
    for (String bytes : new String[] {LINE_SAME_SIZE, LINE_DRAM}) {
      run("LineReadBenchmark", "lineReadBatch", Map.of("bytes", bytes));
      if (!q) {
        run("LineReadBenchmark", "lineRead", Map.of("bytes", bytes));
      }
    }
    // The experiment behind the batch loop's shape (BatchShapeBenchmark), same array size.
    for (String method :
        new String[] {"singlePassNegative", "touchThenTestNegative", "laneBroadcastNegative"}) {
      run("BatchShapeBenchmark", method, Map.of("n", DRAM_N));
    }
    for (String type : ALL_TYPES) {
      run("FilterBenchmark", "insert", Map.of("type", type, "n", CACHE_N));
    }
    if (!q) {
      for (String type : ALL_TYPES) {
        run("FilterBenchmark", "insert", Map.of("type", type, "n", DRAM_N));
      }
    }
    filterTables();
  }

  private void filterTables() {
    out.println();
    out.println("Single-key lookups: ns per key (FP % = hits among foreign keys)");
    out.printf(
        "%-20s %10s %10s %8s %10s %10s %8s %10s %10s%n",
        "structure",
        "pos 1e5",
        "neg 1e5",
        "FP %",
        "pos 1e7",
        "neg 1e7",
        "FP %",
        "insert 1e5",
        "insert 1e7");
    for (String t : ALL_TYPES) {
      out.printf(
          "%-20s %10s %10s %8s %10s %10s %8s %10s %10s%n",
          t,
          ns(find("positive", "type", t, "n", CACHE_N)),
          ns(find("negative", "type", t, "n", CACHE_N)),
          pct(find("negative", "type", t, "n", CACHE_N)),
          ns(find("positive", "type", t, "n", DRAM_N)),
          ns(find("negative", "type", t, "n", DRAM_N)),
          pct(find("negative", "type", t, "n", DRAM_N)),
          ns(find("insert", "type", t, "n", CACHE_N)),
          ns(find("insert", "type", t, "n", DRAM_N)));
    }
    out.println();
    out.println(
        "Single-key calls in a loop ("
            + ProbeState.BATCH
            + " mightContain calls an invocation):"
            + " ns per key, without JMH's per-call bookkeeping");
    out.printf(
        "%-20s %10s %10s %10s %10s%n", "structure", "pos 1e5", "neg 1e5", "pos 1e7", "neg 1e7");
    for (String t : ALL_TYPES) {
      out.printf(
          "%-20s %10s %10s %10s %10s%n",
          t,
          ns(find("positiveLoop", "type", t, "n", CACHE_N)),
          ns(find("negativeLoop", "type", t, "n", CACHE_N)),
          ns(find("positiveLoop", "type", t, "n", DRAM_N)),
          ns(find("negativeLoop", "type", t, "n", DRAM_N)));
    }
    out.println();
    out.println(
        "Batch lookups (mightContainBatch, "
            + ProbeState.BATCH
            + " keys a call, verdicts as a long[] bitmap): ns per key; the memory limit is one"
            + " random independent cache-line read");
    out.printf(
        "%-34s %10s %10s %10s %10s%n", "structure", "pos 1e5", "neg 1e5", "pos 1e7", "neg 1e7");
    for (String t : ALL_TYPES) {
      if (find("negativeBatch", "type", t, "n", CACHE_N) == null) {
        continue;
      }
      out.printf(
          "%-34s %10s %10s %10s %10s%n",
          t,
          ns(find("positiveBatch", "type", t, "n", CACHE_N)),
          ns(find("negativeBatch", "type", t, "n", CACHE_N)),
          ns(find("positiveBatch", "type", t, "n", DRAM_N)),
          ns(find("negativeBatch", "type", t, "n", DRAM_N)));
    }
    out.printf(
        "%-34s %10s %10s %10s %10s%n",
        "BBF_SIMD, boolean[] verdicts",
        "",
        "",
        "",
        ns(find("negativeBatchBooleans", "type", "BBF_SIMD", "n", DRAM_N)));
    for (String bytes : new String[] {LINE_SAME_SIZE, LINE_DRAM}) {
      String label = (Long.parseLong(bytes) >> 20) + " MiB";
      out.printf(
          "%-34s %10s (batched)   %10s (one a call)%n",
          "cache-line read over " + label,
          ns(find("lineReadBatch", "bytes", bytes)),
          ns(find("lineRead", "bytes", bytes)));
    }

    Row singlePass = find("singlePassNegative", "n", DRAM_N);
    Row touch = find("touchThenTestNegative", "n", DRAM_N);
    Row lanes = find("laneBroadcastNegative", "n", DRAM_N);
    out.printf(
        "%-34s %10s   (the batches' shape, rebuilt: BatchShapeBenchmark)%n",
        "experiment: single pass, 1e7", ns(singlePass));
    out.printf(
        "%-34s %10s   (touch 256 lines, then test them)%n",
        "experiment: touch-then-test, 1e7", ns(touch));
    out.printf(
        "%-34s %10s   (single pass, mask from a broadcast lane)%n",
        "experiment: lane broadcast, 1e7", ns(lanes));
    Row sameSize = find("lineReadBatch", "bytes", LINE_SAME_SIZE);
    put("experiment_single_pass_over_line_read", singlePass, sameSize);
    put("experiment_touch_then_test_over_line_read", touch, sameSize);
    put("experiment_lane_broadcast_over_line_read", lanes, sameSize);

    ratio("bbf_simd_over_bf_pos_cache", "positive", "BLOOM_K8", "BBF_SIMD", CACHE_N);
    ratio("bbf_simd_over_bf_neg_cache", "negative", "BLOOM_K8", "BBF_SIMD", CACHE_N);
    ratio(
        "bbf_simd_over_fastfilter_blocked_pos_cache",
        "positive",
        "FASTFILTER_BLOCKED",
        "BBF_SIMD",
        CACHE_N);
    ratio(
        "bbf_simd_over_fastfilter_blocked_neg_cache",
        "negative",
        "FASTFILTER_BLOCKED",
        "BBF_SIMD",
        CACHE_N);
    ratio("bbf_simd_over_bf_pos_cache_loop", "positiveLoop", "BLOOM_K8", "BBF_SIMD", CACHE_N);
    ratio("bbf_simd_over_bf_neg_cache_loop", "negativeLoop", "BLOOM_K8", "BBF_SIMD", CACHE_N);
    ratio(
        "bbf_simd_over_fastfilter_blocked_pos_cache_loop",
        "positiveLoop",
        "FASTFILTER_BLOCKED",
        "BBF_SIMD",
        CACHE_N);
    ratio(
        "bbf_simd_over_fastfilter_blocked_neg_cache_loop",
        "negativeLoop",
        "FASTFILTER_BLOCKED",
        "BBF_SIMD",
        CACHE_N);
    ratio(
        "bbf_simd_lw64_over_fastfilter_blocked_neg_cache_loop",
        "negativeLoop",
        "FASTFILTER_BLOCKED",
        "BBF_SIMD_LW64",
        CACHE_N);
    ratio(
        "bbf_simd_over_fastfilter_blocked_neg_dram_loop",
        "negativeLoop",
        "FASTFILTER_BLOCKED",
        "BBF_SIMD",
        DRAM_N);
    ratio("bbf_simd_over_guava_pos_cache", "positive", "GUAVA", "BBF_SIMD", CACHE_N);
    ratio("bbf_simd_over_guava_neg_cache", "negative", "GUAVA", "BBF_SIMD", CACHE_N);
    ratio("bbf_simd_over_ombf_neg_cache", "negative", "OMBF", "BBF_SIMD", CACHE_N);
    ratio("bbf_simd_over_scalar_neg_cache", "negative", "BBF_SCALAR", "BBF_SIMD", CACHE_N);
    ratio(
        "bbf_simd_lw64_over_fastfilter_blocked_pos_cache",
        "positive",
        "FASTFILTER_BLOCKED",
        "BBF_SIMD_LW64",
        CACHE_N);
    ratio(
        "bbf_simd_lw64_over_fastfilter_blocked_neg_cache",
        "negative",
        "FASTFILTER_BLOCKED",
        "BBF_SIMD_LW64",
        CACHE_N);
    ratio("bbf_simd_over_bf_neg_dram", "negative", "BLOOM_K8", "BBF_SIMD", DRAM_N);
    ratio(
        "bbf_simd_over_fastfilter_blocked_neg_dram",
        "negative",
        "FASTFILTER_BLOCKED",
        "BBF_SIMD",
        DRAM_N);
    Row batch = find("negativeBatch", "type", "BBF_SIMD", "n", DRAM_N);
    Row line = find("lineReadBatch", "bytes", LINE_SAME_SIZE);
    Row lineDram = find("lineReadBatch", "bytes", LINE_DRAM);
    Row single = find("negative", "type", "BBF_SIMD", "n", DRAM_N);
    put("dram_batch_neg_over_line_read", batch, line);
    put("dram_batch_neg_over_line_read_1gib", batch, lineDram);
    put(
        "dram_batch_neg_lw64_over_line_read",
        find("negativeBatch", "type", "BBF_SIMD_LW64", "n", DRAM_N),
        line);
    put("dram_single_neg_over_batch_neg", single, batch);
    put(
        "dram_loop_neg_over_line_read",
        find("negativeLoop", "type", "BBF_SIMD", "n", DRAM_N),
        line);
    put(
        "dram_batch_booleans_neg_over_line_read",
        find("negativeBatchBooleans", "type", "BBF_SIMD", "n", DRAM_N),
        line);
    put("bbf_simd_neg_ns_cache", find("negative", "type", "BBF_SIMD", "n", CACHE_N));
    put("bbf_simd_pos_ns_cache", find("positive", "type", "BBF_SIMD", "n", CACHE_N));
    put("bbf_simd_batch_neg_ns_dram", batch);
    put("line_read_batch_ns_16mib", line);

    out.println();
    out.println("Targets, ratios of times from this run:");
    out.printf("%-46s %-12s %10s  %s%n", "ratio", "target", "measured", "verdict");
    out.println(
        "  single-key calls in a loop: throughput, the paper's metric (searches/s = 1e9 / ns):");
    target("bbf_simd_over_bf_pos_cache_loop", ">= 5", 5, true);
    target("bbf_simd_over_bf_neg_cache_loop", ">= 5", 5, true);
    target("bbf_simd_over_fastfilter_blocked_pos_cache_loop", ">= 2", 2, true);
    target("bbf_simd_over_fastfilter_blocked_neg_cache_loop", ">= 2", 2, true);
    out.println("  batch:");
    target("dram_batch_neg_over_line_read", "<= 1.3", 1.3, false);
    out.println(
        "For reference, not targets: one call an invocation, an isolated call with its fixed");
    out.println(
        "costs (JMH's bookkeeping; the filter's field loads, type checks, MemorySegment bounds");
    out.println(
        "and liveness checks, which a loop hoists and FastFilter's plain long[] does not have):");
    info("bbf_simd_over_bf_pos_cache");
    info("bbf_simd_over_bf_neg_cache");
    info("bbf_simd_over_fastfilter_blocked_pos_cache");
    info("bbf_simd_over_fastfilter_blocked_neg_cache");
  }

  private void info(String name) {
    out.printf("%-46s %-12s %10s%n", name, "", summary.get(name));
  }

  private void ratio(String name, String method, String slowType, String fastType, String n) {
    put(name, find(method, "type", slowType, "n", n), find(method, "type", fastType, "n", n));
  }

  private void target(String name, String label, double bound, boolean atLeast) {
    String v = summary.get(name);
    String verdict;
    if (v == null || v.equals("NaN")) {
      verdict = "not measured";
    } else {
      double d = Double.parseDouble(v);
      verdict = (atLeast ? d >= bound : d <= bound) ? "MET" : "MISSED";
    }
    out.printf("%-46s %-12s %10s  %s%n", name, label, v, verdict);
  }

  // ---------------------------------------------------------------------------------------------
  // bench paper

  private static final String[] PAPER_TYPES = {"BLOOM", "OMBF", "BBF_SCALAR", "BBF_SIMD"};
  private static final String[] PAPER_LABELS = {"BF", "OMBF", "BBF scalar", "BBF SIMD"};
  private static final java.awt.Color[] PAPER_COLORS = {
    Chart.RED, Chart.ORANGE, Chart.BLUE, Chart.GREEN
  };

  void paper() throws RunnerException, IOException {
    boolean q = settings.quick;
    out.println("bench paper: " + settings.describe());
    out.println(
        "Fan and Niu, \"BBF\" (seed 000): Fig. 5, the extra bits, Fig. 6 and Fig. 7 on this"
            + " machine");
    out.println();
    // Full runs draw the figures the README shows (docs/img, committed); quick runs draw theirs
    // beside their JSON (bench-results/img, ignored by git), so a smoke test never overwrites them.
    Path img = home.resolve(q ? "bench-results/img" : "docs/img");

    // Fig. 5 and the extra bits: counting, in this JVM.
    double expectedFp = q ? 1_000 : 10_000;
    FprExperiment.Point[][] fig5 = {
      FprExperiment.fig5(32, expectedFp), FprExperiment.fig5(64, expectedFp)
    };
    fig5Table(fig5);
    fig5Plot(fig5, img.resolve("fig5_fpr.png"));
    FprExperiment.ExtraBits[] extra = {
      FprExperiment.extraBits(32, q ? 16 : 64, q ? 500_000 : 1_000_000),
      FprExperiment.extraBits(64, q ? 16 : 64, q ? 500_000 : 1_000_000)
    };
    extraBitsTable(extra);

    // Fig. 6: k sweep at n = 1e5, m = 1e6.
    int[] ks = q ? new int[] {2, 8, 16} : new int[] {2, 4, 8, 16};
    for (String method : new String[] {"positive", "negative"}) {
      for (int k : ks) {
        for (String type : PAPER_TYPES) {
          run(
              "PaperBenchmark",
              method,
              Map.of("type", type, "k", String.valueOf(k), "mBits", "1000000", "fill", "0.1"));
        }
      }
    }
    fig6(ks, img.resolve("fig6_k.png"));

    // Fig. 7: m sweep, k = 8, F = 0.1.
    // Quick: L1, L2 and L3 sizes, negative lookups only. Full: up to 2^28 bits (32 MiB, the whole
    // L3, which the other processes share), where filling the BF (2.7e7 keys, 8 Murmur3 hashes
    // and 8 random writes each) already takes about a minute per fork on a shared 2-core machine.
    int[] logs = q ? new int[] {15, 20, 25} : new int[] {15, 18, 21, 24, 26, 28};
    String[] fig7Methods = q ? new String[] {"negative"} : new String[] {"positive", "negative"};
    for (String method : fig7Methods) {
      for (int log : logs) {
        for (String type : PAPER_TYPES) {
          run(
              "PaperBenchmark",
              method,
              Map.of("type", type, "k", "8", "mBits", String.valueOf(1L << log), "fill", "0.1"));
        }
      }
    }
    fig7(logs, fig7Methods, img.resolve("fig7_m.png"));
  }

  private void fig5Table(FprExperiment.Point[][] fig5) {
    out.println(
        "Fig. 5: BBF false-positive rate, eq. 3 model vs measured; k = 4, m = 2^20 bits,"
            + " 4 filters a point, fixed seeds");
    out.printf(
        "%6s %8s | %11s %11s %7s %6s | %11s %11s %7s %6s | %11s %6s %6s%n",
        "F",
        "n",
        "model lw32",
        "meas. lw32",
        "rel err",
        "z",
        "model lw64",
        "meas. lw64",
        "rel err",
        "z",
        "BF model",
        "D32",
        "D64");
    double maxRel = 0;
    for (int i = 0; i < fig5[0].length; i++) {
      FprExperiment.Point a = fig5[0][i];
      FprExperiment.Point b = fig5[1][i];
      maxRel = Math.max(maxRel, Math.max(a.relError(), b.relError()));
      out.printf(
          "%6.2f %8d | %11.4e %11.4e %6.1f%% %6.2f | %11.4e %11.4e %6.1f%% %6.2f | %11.4e %6.2f"
              + " %6.2f%n",
          a.fill(),
          a.n(),
          a.model(),
          a.measured(),
          100 * a.relError(),
          a.z(),
          b.model(),
          b.measured(),
          100 * b.relError(),
          b.z(),
          a.bloomModel(),
          (a.model() - a.bloomModel()) / a.bloomModel(),
          (b.model() - b.bloomModel()) / b.bloomModel());
    }
    out.println(
        "D = (p_BBF - p_BF) / p_BF from the models. Paper (Fig. 3b text): D falls from 2.98"
            + " to 0.10 (lw = 32) and from 1.28 to 0.05 (lw = 64) as F goes from 0.02 to 0.20.");
    out.println();
    summary.put("fpr_model_max_rel_error", fmt(maxRel));
  }

  private void fig5Plot(FprExperiment.Point[][] fig5, Path png) throws IOException {
    int len = fig5[0].length;
    double[] x = new double[len];
    double[][] model = new double[2][len];
    double[][] meas = new double[2][len];
    double[] bloom = new double[len];
    for (int i = 0; i < len; i++) {
      x[i] = fig5[0][i].fill();
      bloom[i] = fig5[0][i].bloomModel();
      for (int w = 0; w < 2; w++) {
        model[w][i] = fig5[w][i].model();
        meas[w][i] = fig5[w][i].measured();
      }
    }
    double[] ticks = FprExperiment.FILLS;
    String[] labels = new String[ticks.length];
    for (int i = 0; i < ticks.length; i++) {
      labels[i] = String.format("%.2f", ticks[i]);
    }
    Chart c =
        new Chart(
                "Fig. 5: BBF false-positive rate, model vs measured (k = 4, m = 2^20)",
                "fill factor F = n / m",
                "false-positive rate (log scale)",
                true)
            .add(new Chart.Series("BBF lw=32, eq. 3 model", Chart.BLUE, false, true, x, model[0]))
            .add(new Chart.Series("BBF lw=32, measured", Chart.BLUE, false, false, x, meas[0]))
            .add(new Chart.Series("BBF lw=64, eq. 3 model", Chart.GREEN, false, true, x, model[1]))
            .add(new Chart.Series("BBF lw=64, measured", Chart.GREEN, false, false, x, meas[1]))
            .add(new Chart.Series("standard BF, model", Chart.RED, true, true, x, bloom))
            .xTicks(ticks, labels)
            .legendBottom();
    Chart.write(png, 900, 560, c);
    out.println("plot: " + home.relativize(png));
    out.println();
  }

  private void extraBitsTable(FprExperiment.ExtraBits[] extra) {
    out.println(
        "Extra bits a BBF needs to match a standard BF's FPR (BF with its best k: m = n ln(1/p) /"
            + " (ln 2)^2)");
    out.println(
        "  paper setting: n = 10^4, k = 4, m = 100,000 bits (r = m / (k lw), not a power of two:"
            + " model only)");
    out.printf(
        "  %-6s | %10s %10s %8s | %10s %10s %8s%n",
        "lw", "paper p", "paper BF", "paper %", "model p", "model BF", "model %");
    for (FprExperiment.ExtraBits e : extra) {
      out.printf(
          "  %-6d | %10.4f %10d %7.2f%% | %10.4f %10d %7.2f%%%n",
          e.wordBits(),
          e.paperFpr(),
          e.paperBloomBits(),
          e.paperPct(),
          e.modelFprPaperSetting(),
          e.modelBloomBits(),
          e.modelPct());
    }
    out.println(
        "  measured: a real BBF with the same load per group and F = 0.1 (m = 2^17 bits, n ="
            + " 13,107), FPR averaged over many filters; the BF of that size built and measured as"
            + " a check");
    out.printf(
        "  %-6s %-30s %10s %11s %9s %10s %5s %12s%n",
        "lw", "geometry", "queries", "meas. p", "extra %", "BF bits", "BF k", "BF meas. p");
    for (FprExperiment.ExtraBits e : extra) {
      out.printf(
          "  %-6d %-30s %10d %11.5f %8.2f%% %10d %5d %12.5f%n",
          e.wordBits(),
          "r=" + e.geometry().groups() + " k=4 m=" + e.geometry().bitSize(),
          e.queries(),
          e.measuredFpr(),
          e.measuredPct(),
          e.bloomBitsForMeasured(),
          e.bloomK(),
          e.bloomMeasuredFpr());
    }
    out.println();
    summary.put("extra_bits_lw32_pct", fmt(extra[0].measuredPct()));
    summary.put("extra_bits_lw64_pct", fmt(extra[1].measuredPct()));
    summary.put("extra_bits_lw32_model_pct", fmt(extra[0].modelPct()));
    summary.put("extra_bits_lw64_model_pct", fmt(extra[1].modelPct()));
  }

  private void fig6(int[] ks, Path png) throws IOException {
    out.println();
    out.println(
        "Fig. 6: lookups vs k, n = 1e5, m = 1e6 (BBF: 2^20), million lookups per second (higher is"
            + " better), 1,024 single-key queries back to back per JMH invocation, as the paper's"
            + " MSPS");
    Chart[] panels = new Chart[2];
    String[] methods = {"positive", "negative"};
    for (int p = 0; p < 2; p++) {
      String method = methods[p];
      out.printf(
          "%-9s %4s %10s %10s %11s %10s %12s %14s%n",
          method, "k", "BF", "OMBF", "BBF scalar", "BBF SIMD", "SIMD / BF", "SIMD / OMBF");
      double[] x = new double[ks.length];
      double[][] y = new double[PAPER_TYPES.length][ks.length];
      for (int i = 0; i < ks.length; i++) {
        x[i] = Math.log(ks[i]) / Math.log(2);
        Row[] r = new Row[PAPER_TYPES.length];
        for (int t = 0; t < PAPER_TYPES.length; t++) {
          r[t] =
              find(method, "type", PAPER_TYPES[t], "k", String.valueOf(ks[i]), "mBits", "1000000");
          y[t][i] = r[t] == null ? Double.NaN : r[t].mlps();
        }
        out.printf(
            "%-9s %4d %10.1f %10.1f %11.1f %10.1f %11.2fx %13.2fx%n",
            "", ks[i], y[0][i], y[1][i], y[2][i], y[3][i], y[3][i] / y[0][i], y[3][i] / y[1][i]);
      }
      Chart c =
          new Chart(
                  "Fig. 6"
                      + (p == 0 ? "(a) positive" : "(b) negative")
                      + " lookups, n = 1e5, m = 1e6",
                  "k (bits set per key)",
                  "million lookups / s",
                  false)
              .xTicks(x, new String[] {"2", "4", "8", "16"});
      for (int t = 0; t < PAPER_TYPES.length; t++) {
        c.add(new Chart.Series(PAPER_LABELS[t], PAPER_COLORS[t], false, true, x, y[t]));
      }
      panels[p] = c;
    }
    out.println(
        "Paper (i7-8700K, C + AVX2), Fig. 6 text: at k = 8, BBF positive = 4x BF and 3x OMBF;"
            + " negative = 2x both; BBF speed nearly constant in k.");
    Chart.write(png, 760, 520, panels);
    out.println("plot: " + home.relativize(png));
    putRatio("bbf_simd_over_bf_k8_pos", "positive", "BLOOM", 8);
    putRatio("bbf_simd_over_ombf_k8_pos", "positive", "OMBF", 8);
    putRatio("bbf_simd_over_bf_k8_neg", "negative", "BLOOM", 8);
    putRatio("bbf_simd_over_ombf_k8_neg", "negative", "OMBF", 8);
    putRatio("bbf_simd_over_scalar_k8_pos", "positive", "BBF_SCALAR", 8);
  }

  private void putRatio(String name, String method, String slowType, int k) {
    put(
        name,
        find(method, "type", slowType, "k", String.valueOf(k), "mBits", "1000000"),
        find(method, "type", "BBF_SIMD", "k", String.valueOf(k), "mBits", "1000000"));
  }

  private void fig7(int[] logs, String[] methods, Path png) throws IOException {
    out.println();
    out.println("Fig. 7: lookups vs m, k = 8, F = n/m = 0.1, million lookups per second");
    List<CacheLevel> caches = CacheLevel.read();
    out.println("caches: " + caches);
    Chart[] panels = new Chart[methods.length];
    for (int p = 0; p < methods.length; p++) {
      String method = methods[p];
      out.printf(
          "%-9s %8s %10s %10s %10s %11s %10s%n",
          method, "log2 m", "size", "BF", "OMBF", "BBF scalar", "BBF SIMD");
      double[] x = new double[logs.length];
      double[][] y = new double[PAPER_TYPES.length][logs.length];
      String[] labels = new String[logs.length];
      for (int i = 0; i < logs.length; i++) {
        x[i] = logs[i];
        labels[i] = String.valueOf(logs[i]);
        for (int t = 0; t < PAPER_TYPES.length; t++) {
          Row r =
              find(
                  method, "type", PAPER_TYPES[t], "k", "8", "mBits", String.valueOf(1L << logs[i]));
          y[t][i] = r == null ? Double.NaN : r.mlps();
        }
        out.printf(
            "%-9s %8d %10s %10.1f %10.1f %10.1f %11.1f%n",
            "", logs[i], bytes((1L << logs[i]) / 8), y[0][i], y[1][i], y[2][i], y[3][i]);
      }
      Chart c =
          new Chart(
                  "Fig. 7: " + method + " lookups vs m (k = 8, F = 0.1)",
                  "log2 m (filter bits)",
                  "million lookups / s (log scale)",
                  true)
              .xTicks(x, labels)
              .legendBottom();
      for (CacheLevel cache : caches) {
        double log = Math.log(cache.bytes() * 8.0) / Math.log(2);
        if (log >= logs[0] && log <= logs[logs.length - 1]) {
          c.marker(log, cache.name());
        }
      }
      for (int t = 0; t < PAPER_TYPES.length; t++) {
        c.add(new Chart.Series(PAPER_LABELS[t], PAPER_COLORS[t], false, true, x, y[t]));
      }
      panels[p] = c;
    }
    out.println(
        "Paper Fig. 7: speed falls as m leaves L1, L2, L3 (marked); the BBF keeps one memory access"
            + " a key.");
    Chart.write(png, 760, 520, panels);
    out.println("plot: " + home.relativize(png));
    int last = logs[logs.length - 1];
    put(
        "bbf_simd_over_bf_neg_largest_m",
        find("negative", "type", "BLOOM", "k", "8", "mBits", String.valueOf(1L << last)),
        find("negative", "type", "BBF_SIMD", "k", "8", "mBits", String.valueOf(1L << last)));
  }

  /** A data or unified cache level of CPU 0, from sysfs. */
  record CacheLevel(String name, long bytes) {
    static List<CacheLevel> read() {
      List<CacheLevel> levels = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        Path dir = Path.of("/sys/devices/system/cpu/cpu0/cache/index" + i);
        try {
          String type = Files.readString(dir.resolve("type")).trim();
          if (type.equals("Instruction")) {
            continue;
          }
          String level = Files.readString(dir.resolve("level")).trim();
          String size = Files.readString(dir.resolve("size")).trim();
          long mult = size.endsWith("K") ? 1024 : size.endsWith("M") ? 1 << 20 : 1;
          long value = Long.parseLong(size.replaceAll("[^0-9]", "")) * mult;
          levels.add(new CacheLevel("L" + level, value));
        } catch (IOException | RuntimeException e) {
          break; // no sysfs (not Linux): no markers
        }
      }
      return levels;
    }

    @Override
    public String toString() {
      return name + " " + FilterBenchMain.bytes(bytes);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // running and bookkeeping

  /** Runs one benchmark method with one set of parameters in its own fork, prints one line. */
  private void run(String clazz, String method, Map<String, String> params) throws RunnerException {
    ChainedOptionsBuilder b =
        new OptionsBuilder()
            .include("^" + java.util.regex.Pattern.quote(PKG + clazz + "." + method) + "$")
            .forks(1)
            .warmupIterations(settings.warmups)
            .warmupTime(settings.warmupTime)
            .measurementIterations(settings.iterations)
            .measurementTime(settings.iterationTime)
            .jvmArgs(FORK_JVM_ARGS)
            .verbosity(VerboseMode.SILENT)
            .addProfiler(CpuShareProfiler.class)
            .shouldFailOnError(true);
    params.forEach(b::param);
    java.io.ByteArrayOutputStream forkOutput = new java.io.ByteArrayOutputStream();
    Collection<RunResult> results;
    try (PrintStream ps =
        new PrintStream(forkOutput, true, java.nio.charset.StandardCharsets.UTF_8)) {
      results =
          new Runner(b.build(), OutputFormatFactory.createFormatInstance(ps, VerboseMode.SILENT))
              .run();
    } finally {
      // What the fork printed, less the JDK's one-line notice about the incubator module.
      forkOutput
          .toString(java.nio.charset.StandardCharsets.UTF_8)
          .lines()
          .filter(line -> !line.startsWith("WARNING: Using incubator modules"))
          .filter(line -> !line.isBlank())
          .forEach(line -> out.println("    | " + line));
    }
    for (RunResult r : results) {
      raw.add(r);
      Result<?> primary = r.getPrimaryResult();
      Map<String, Result> secondary = r.getSecondaryResults();
      double hitRatio = Double.NaN;
      if (secondary.containsKey("hits") && secondary.containsKey("probes")) {
        hitRatio = secondary.get("hits").getScore() / secondary.get("probes").getScore();
      }
      Map<String, String> p = new LinkedHashMap<>();
      for (String key : r.getParams().getParamsKeys()) {
        p.put(key, r.getParams().getParam(key));
      }
      double share =
          secondary.containsKey("cpu.share") ? secondary.get("cpu.share").getScore() : Double.NaN;
      double best = Double.POSITIVE_INFINITY;
      for (BenchmarkResult br : r.getBenchmarkResults()) {
        for (IterationResult it : br.getIterationResults()) {
          Result<?> itShare = it.getSecondaryResults().get("cpu.share");
          double f =
              itShare == null || Double.isNaN(itShare.getScore())
                  ? 1.0
                  : Math.min(1.0, itShare.getScore());
          best = Math.min(best, it.getPrimaryResult().getScore() * f);
        }
      }
      if (Double.isInfinite(best)) {
        best = primary.getScore() * (Double.isNaN(share) ? 1.0 : Math.min(1.0, share));
      }
      Row row =
          new Row(method, p, primary.getScore(), primary.getScoreError(), hitRatio, share, best);
      rows.add(row);
      out.printf(
          "  %-30s %-44s %8.2f ns/key (wall %8.2f%s, cpu share %.2f)%s%n",
          clazz + "." + method,
          p.toString(),
          row.nsPerOp(),
          row.wallNs(),
          Double.isNaN(row.error()) ? "" : String.format(" ± %.2f", row.error()),
          share,
          Double.isNaN(hitRatio) ? "" : String.format("   hits %7.3f %%", 100 * hitRatio));
    }
  }

  /** The row of {@code method} whose parameters include every given (name, value) pair. */
  private Row find(String method, String... nameValues) {
    outer:
    for (Row r : rows) {
      if (!r.benchmark().equals(method)) {
        continue;
      }
      for (int i = 0; i < nameValues.length; i += 2) {
        if (!nameValues[i + 1].equals(r.param(nameValues[i]))) {
          continue outer;
        }
      }
      return r;
    }
    return null;
  }

  /** summary: name = time(slow) / time(fast), or NaN if either is missing. */
  private void put(String name, Row slow, Row fast) {
    summary.put(name, slow == null || fast == null ? "NaN" : fmt(slow.nsPerOp() / fast.nsPerOp()));
  }

  private void put(String name, Row row) {
    summary.put(name, row == null ? "NaN" : fmt(row.nsPerOp()));
  }

  private Path writeJson(String suite, Instant start) throws IOException {
    Path dir = home.resolve("bench-results");
    Files.createDirectories(dir);
    String stamp =
        DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(start);
    Path file = dir.resolve(suite + (settings.quick ? "-quick-" : "-") + stamp + ".json");
    try (PrintStream ps = new PrintStream(Files.newOutputStream(file), true, "UTF-8")) {
      ResultFormatFactory.getInstance(ResultFormatType.JSON, ps).writeOut(raw);
    }
    return home.relativize(file);
  }

  private static String ns(Row r) {
    return r == null ? "-" : String.format("%.2f", r.nsPerOp());
  }

  private static String pct(Row r) {
    return r == null || Double.isNaN(r.hitRatio())
        ? "-"
        : String.format("%.3f", 100 * r.hitRatio());
  }

  private static String fmt(double v) {
    return Double.isNaN(v) ? "NaN" : String.format("%.4f", v);
  }

  static String bytes(long b) {
    if (b >= 1L << 30) {
      return (b >> 30) + " GiB";
    }
    if (b >= 1L << 20) {
      return (b >> 20) + " MiB";
    }
    if (b >= 1L << 10) {
      return (b >> 10) + " KiB";
    }
    return b + " B";
  }
}
