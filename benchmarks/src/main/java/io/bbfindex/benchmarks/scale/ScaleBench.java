package io.bbfindex.benchmarks.scale;

import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.benchmarks.harness.BenchTempDir;
import io.bbfindex.benchmarks.harness.ChildJvm;
import io.bbfindex.benchmarks.harness.CountConverter;
import io.bbfindex.benchmarks.harness.Filled;
import io.bbfindex.benchmarks.harness.ProjectHome;
import io.bbfindex.benchmarks.harness.ThreadClock;
import io.bbfindex.benchmarks.synthetic.StoreAssembly;
import io.bbfindex.benchmarks.synthetic.SyntheticKeys;
import io.bbfindex.benchmarks.synthetic.SyntheticStore;
import io.bbfindex.ingest.filterbuild.BuildOptions;
import io.bbfindex.ingest.filterbuild.ConsoleProgress;
import io.bbfindex.ingest.filterbuild.ProgressListener;
import io.bbfindex.ingest.store.FilterStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bbf-index bench scale [--quick] [--keys N]}: mainnet scale with synthetic txids: 5,600
 * block files and 1.4 billion txids (--quick: 56 million txids, still 5,600 files).
 *
 * <ol>
 *   <li>Build the 5,600-file store (one BBF per block file, the summary BBF over every txid, the
 *       block-hash BBF, the manifest) with the builder's pieces ({@link SyntheticStore}: the
 *       builder's ingest pass and sizing; {@code FilterBuilder.build} itself needs a node's block
 *       index): build time, peak memory, bytes on disk.
 *   <li>The same txids split over 1, 56 and 560 block files: three more stores (their summary is
 *       bit-identical, so it is shared, not rebuilt), built in one pass over the keys on a second
 *       thread while the main store builds (each key made once, one {@code TxFilterPass} per
 *       store): the build ran on one core before, 4 passes over 1.4 billion keys.
 *   <li>Per store, one store open at a time (each holds in-memory copies of its filters; with
 *       {@code --lock FILE} this phase and the next hold the machine's benchmark lock): negative
 *       lookup cost through {@link FilterStore#mightContainTx} (the product's probe: the summary,
 *       one cache line), and, for contrast, what probing every per-file filter would cost ({@link
 *       FilterStore#candidateFiles}).
 *   <li>Start-up: a fresh JVM that opens the 5,600-file store and starts the HTTP server ({@link
 *       StartupProbe}), timed from process start to its {@code listening} line, and the memory it
 *       then holds (RSS): for the default store (no per-file filters: the summary and the
 *       block-hash filter) and for the same store with its per-file filters; then the same for the
 *       1-file store, as what the file count costs ({@link FileCountCost}: start-up and RSS ratios;
 *       a lookup's cost cannot depend on the count, it probes only the summary).
 *   <li>The own txid index of the same txids (issue 26, {@link OwnIndexScale}): bytes a txid, build
 *       time and keys per CPU second, open and whole-check cost, positive lookups in memory and
 *       from a cold page cache ({@code --own-index-only}: this phase alone).
 *   <li>The real {@code serve} over a datadir of mainnet geometry ({@link ServeStartup}: 950,000
 *       block records, a summary sized for 1.4 billion txids), exec of the packaged jar to the
 *       first correct answer, page cache dropped and warm ({@code --serve-startup-only}: this phase
 *       alone).
 * </ol>
 */
@Command(
    name = "scale",
    description = {
      "Filter store at mainnet scale: 5,600 block files, 1.4 billion synthetic txids (--quick: 56"
          + " million, same file count). Build time, peak memory, filter bytes, negative-lookup"
          + " cost for 1, 56, 560 and 5,600 files, and the service's start-up time with 5,600"
          + " filter files; then the own txid index of the same txids (bytes a txid, build,"
          + " lookups in memory and from a cold page cache; 30 bytes a txid of temporary disk)."
          + " Needs about 2.5 bytes of memory per txid (give the JVM -Xmx1g or more;"
          + " filters are off-heap)."
    })
public final class ScaleBench implements Callable<Integer> {

  @Option(
      names = "--quick",
      description = "56 million txids (default 1.4 billion); still 5,600 files")
  boolean quick;

  @Option(
      names = "--keys",
      paramLabel = "N",
      converter = CountConverter.class,
      description = "synthetic txids")
  @Nullable Long keys;

  @Option(
      names = "--lock",
      paramLabel = "FILE",
      description =
          "hold FILE with flock(1) during the lookup and start-up phases only (not the build),"
              + " e.g. the machine's shared benchmark lock")
  @Nullable Path lock;

  @Option(
      names = "--own-index-only",
      description =
          "only the own txid index phase (build, bytes a txid, lookups in memory and from a cold"
              + " page cache), not the filter stores")
  boolean ownIndexOnly;

  @Option(
      names = "--serve-startup-only",
      description =
          "only the real serve's start-up over a mainnet-geometry datadir (950,000 block records,"
              + " summary for 1.4 billion txids; generated once under"
              + " ${XDG_CACHE_HOME:-~/.cache}/bbf-index), page cache dropped and warm")
  boolean serveStartupOnly;

  @Option(
      names = "--serve-startup-runs",
      paramLabel = "N",
      description = "cold and warm serve start-ups to time, each (default 5; the medians of these)")
  int serveStartupRuns = ServeStartup.RUNS;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "this help")
  boolean help;

  static final int MAINNET_FILES = 5_600;

  /**
   * Untimed rounds of negative lookups before each store's timed ones: with the stores measured one
   * after the other, the first one also waits for the JIT.
   */
  static final int WARM_UP_ROUNDS = 3;

  static final long MAINNET_TXIDS = 1_400_000_000L;

  /** Mainnet's ratio of block hashes to txids (about 950,000 blocks for 1.4 billion txids). */
  static final double BLOCKS_PER_TXID = 950_000.0 / MAINNET_TXIDS;

  /**
   * @param startupRuns fresh-JVM start-ups to time (0: none)
   */
  record Config(
      long keys,
      int files,
      int[] steps,
      int negatives,
      int perFileProbeKeys,
      int rounds,
      long minNanos,
      int startupRuns,
      long seed,
      boolean quick) {
    static Config of(boolean quick) {
      return quick
          ? new Config(
              56_000_000L,
              MAINNET_FILES,
              new int[] {1, 56, 560, 5_600},
              1 << 20,
              200,
              5,
              300_000_000L,
              3,
              0x5CA1EL,
              true)
          : new Config(
              MAINNET_TXIDS,
              MAINNET_FILES,
              new int[] {1, 56, 560, 5_600},
              1 << 22,
              200,
              5,
              1_000_000_000L,
              3,
              0x5CA1EL,
              false);
    }

    Config withKeys(long k) {
      return new Config(
          k, files, steps, negatives, perFileProbeKeys, rounds, minNanos, startupRuns, seed, quick);
    }
  }

  /**
   * Per store: file count, ns per negative lookup (median), observed FPR, per-file-probe ns, open
   * ms.
   */
  record Step(
      int files,
      double negNs,
      double negWallNs,
      double negFpr,
      double perFileProbeNs,
      double openMs,
      long storeBytes) {}

  record Result(
      double buildSeconds,
      long totalBytes,
      double bytesPerKey,
      long peakRss,
      List<Step> steps,
      double startupSeconds,
      boolean allInsertedFound) {}

  ScaleBench() {}

  @Override
  public Integer call() throws IOException, InterruptedException {
    Config c = Config.of(quick);
    if (keys != null) {
      c = c.withKeys(keys);
    }
    BenchReport report = new BenchReport(c.quick() ? "scale-quick" : "scale", System.out);
    try (BenchTempDir tmp = BenchTempDir.create("bbf-bench-scale-")) {
      if (ownIndexOnly) {
        report.line(
            "bbf-index bench scale%s --own-index-only: %s synthetic txids in %s block files",
            c.quick() ? " --quick" : "", BenchReport.count(c.keys()), BenchReport.count(c.files()));
        report.environment();
        ownIndex(c, report, tmp.path());
      } else if (serveStartupOnly) {
        report.line("bbf-index bench scale --serve-startup-only");
        report.environment();
        ServeStartup.run(report, tmp.path(), serveStartupRuns);
      } else {
        run(c, report, tmp.path(), new ConsoleProgress(), lock);
        // 6. the real serve over a mainnet-geometry datadir (block index, txindex, store)
        ServeStartup.run(report, tmp.path(), serveStartupRuns);
      }
    }
    report.finish(ProjectHome.home());
    return 0;
  }

  static Result run(Config c, BenchReport r, Path tmp, ProgressListener progress)
      throws IOException, InterruptedException {
    return run(c, r, tmp, progress, null);
  }

  /**
   * @param lock held with flock(1) during the measured lookup and start-up phases, or null
   */
  static Result run(
      Config c, BenchReport r, Path tmp, ProgressListener progress, @Nullable Path lock)
      throws IOException, InterruptedException {
    printPlan(c, r);
    BuildOptions opts = BuildOptions.defaults();
    long blocks = Math.max(1, Math.round(c.keys() * BLOCKS_PER_TXID));
    resetHeapPeaks();
    Builds builds = buildStores(c, tmp, progress, opts, blocks);
    long peakRss = BenchReport.peakRssBytes();
    long peakHeap = heapPeak();
    SyntheticStore.Built main = builds.main();
    Map<Integer, Path> stores = new LinkedHashMap<>();
    stores.put(c.files(), main.dir());
    Path plain = tmp.resolve("files-" + c.files() + "-default");
    StoreAssembly.withoutFileFilters(main.dir(), plain);
    long plainBytes = StoreAssembly.directoryBytes(plain);
    double buildSeconds = main.elapsed().toNanos() / 1e9;
    printBuild(c, r, opts, blocks, main, new long[] {peakRss, peakHeap, plainBytes});
    printFewerFiles(r, builds, stores);

    // 3. lookups, store by store
    r.line("build done; load average %s", PhaseLock.loadAverage());
    PhaseLock quiet = null;
    if (lock != null) {
      quiet = PhaseLock.acquire(lock);
      r.line(
          "lookups and start-ups hold %s (flock); load average %s", lock, PhaseLock.loadAverage());
    }
    Result result;
    try {
      result = measure(c, r, tmp, stores, main, plain, plainBytes, buildSeconds, peakRss);
    } finally {
      if (quiet != null) {
        quiet.close();
      }
      r.line("measured; load average %s", PhaseLock.loadAverage());
    }
    // 5. the own txid index of the same txids (its own build, lookups from its mapping)
    ownIndex(c, r, tmp);
    return result;
  }

  /** Phase 5: the own txid index ({@link OwnIndexScale}) and its summary lines. */
  static OwnIndexScale.Result ownIndex(Config c, BenchReport r, Path tmp)
      throws IOException, InterruptedException {
    r.line("own txid index phase; load average %s", PhaseLock.loadAverage());
    OwnIndexScale.Result own =
        OwnIndexScale.run(c, r, tmp.resolve("own-index"), 1 << 20, c.quick() ? 100 : 300);
    OwnIndexScale.summarize(r, own);
    return own;
  }

  /** The first lines: what is built and how. */
  private static void printPlan(Config c, BenchReport r) {
    r.line(
        "bbf-index bench scale%s: %s synthetic txids in %s block files%s",
        c.quick() ? " --quick" : "",
        BenchReport.count(c.keys()),
        BenchReport.count(c.files()),
        c.quick()
            ? " (--quick: txids scaled down from 1,400,000,000; the file count is not)"
            : " (mainnet scale)");
    r.environment();
    r.line(
        "build: SyntheticStore = the builder's pieces without FilterBuilder.build (which sizes from"
            + " a node's block index, absent here): per-file BBF sized for its txids at 1% FPR"
            + " (written as with BuildOptions.fileFilters on), summary BBF for "
            + BuildOptions.DEFAULT_HEADROOM
            + "x all txids at 1% (format v2: any group count), TxFilterPass (the builder's ingest"
            + " loop) on one thread, FilterFile.write (2 fsyncs per file) on 8 writer threads,"
            + " manifest; txids are SplitMix64 keys split evenly over the files. The default store"
            + " (per-file filters off, what serve builds) is the same summary and block-hash filter"
            + " with a manifest of bookkeeping entries. The 1-, 56- and 560-file stores are built"
            + " at the same time on the other core, in one pass over the keys (each key made once,"
            + " one TxFilterPass per store, per-file filters only): they share the main store's"
            + " summary file, so the main store's build time is measured beside that pass."
            + " GLIBC_TUNABLES="
            + System.getenv().getOrDefault("GLIBC_TUNABLES", "(unset)")
            + " (glibc.malloc.hugetlb=1: the builder's filters on transparent huge pages).");
  }

  /**
   * The stores of phases 1 and 2: the main store, the same txids over fewer files, and the seconds
   * the fewer-file pass took.
   */
  record Builds(
      SyntheticStore.Built main,
      List<Integer> fewer,
      List<SyntheticStore.Built> others,
      double othersSeconds) {}

  /** Phases 1 and 2: the main store on its own thread, the fewer-file stores on this one. */
  private static Builds buildStores(
      Config c, Path tmp, ProgressListener progress, BuildOptions opts, long blocks)
      throws IOException, InterruptedException {
    // 1. the mainnet-shaped store, on its own thread; meanwhile (2.) the fewer-file stores
    ExecutorService mainBuild =
        Executors.newSingleThreadExecutor(task -> new Thread(task, "main-store"));
    CompletableFuture<SyntheticStore.Built> mainStore =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return SyntheticStore.build(
                    tmp.resolve("files-" + c.files()),
                    new SyntheticStore.Spec(c.keys(), c.files(), blocks, c.seed(), opts),
                    null,
                    progress);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            },
            mainBuild);
    // 2. meanwhile, on this thread (the second core), the same txids over fewer files in one pass
    // of their own, each store with its own TxFilterPass; their summary is the main store's file
    // (the same filter, whatever the split), linked once that store is written
    List<Integer> fewer = new ArrayList<>();
    for (int files : c.steps()) {
      if (files != c.files()) {
        fewer.add(files);
      }
    }
    long othersStart = System.nanoTime();
    List<SyntheticStore.Built> others;
    SyntheticStore.Built main;
    try {
      others =
          fewer.isEmpty()
              ? List.of()
              : SyntheticStore.build(
                  fewer.stream().map(files -> tmp.resolve("files-" + files)).toList(),
                  fewer.stream()
                      .map(
                          files -> new SyntheticStore.Spec(c.keys(), files, blocks, c.seed(), opts))
                      .toList(),
                  mainStore.thenApply(SyntheticStore.Built::dir),
                  ProgressListener.NONE);
      main = mainStore.get();
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof UncheckedIOException u
          ? u.getCause()
          : new IOException("main store build failed", e.getCause());
    } finally {
      mainBuild.shutdownNow();
    }
    double othersSeconds = (System.nanoTime() - othersStart) / 1e9;
    return new Builds(main, fewer, others, othersSeconds);
  }

  /**
   * The main store's build table; {@code bytes}: peak RSS, peak heap, the default store's bytes.
   */
  private static void printBuild(
      Config c,
      BenchReport r,
      BuildOptions opts,
      long blocks,
      SyntheticStore.Built main,
      long[] bytes) {
    double buildSeconds = main.elapsed().toNanos() / 1e9;
    r.table(
        "build of the " + BenchReport.count(c.files()) + "-file store",
        List.of("what", "value"),
        List.of(
            List.of(
                "build time (beside the fewer-file stores' pass)",
                String.format(
                    Locale.ROOT, "%.1f s (%.0f txids/s)", buildSeconds, c.keys() / buildSeconds)),
            List.of("peak RSS (VmHWM, whole JVM)", mib(bytes[0])),
            List.of("peak heap (all heap pools)", mib(bytes[1])),
            List.of(
                "per-file filters",
                mib(main.fileFilterBytes())
                    + String.format(
                        Locale.ROOT, " (%.2f bits/txid)", 8.0 * main.fileFilterBytes() / c.keys())),
            List.of(
                "summary filter",
                mib(main.summaryBytes())
                    + String.format(
                        Locale.ROOT, " (%.2f bits/txid)", 8.0 * main.summaryBytes() / c.keys())),
            List.of(
                "block-hash filter (" + BenchReport.count(blocks) + " hashes)",
                mib(main.blockHashBytes())),
            List.of(
                "summary alone",
                String.format(
                    Locale.ROOT,
                    "%.3f bytes/txid (eq. 3 needs %.3f at 1%% for its capacity; headroom %.2fx)",
                    (double) main.summaryBytes() / c.keys(),
                    io.bbfindex.filters.BbfSizing.bitsNeeded(
                            (long) Math.ceil(c.keys() * opts.summaryHeadroom()), opts.summaryFpr())
                        / 8
                        / c.keys(),
                    opts.summaryHeadroom())),
            List.of(
                "store with per-file filters (fileFilters on)",
                mib(main.totalBytes())
                    + String.format(
                        Locale.ROOT, " (%.2f bytes/txid)", (double) main.totalBytes() / c.keys())),
            List.of(
                "default store (no per-file filters)",
                mib(bytes[2])
                    + String.format(
                        Locale.ROOT, " (%.3f bytes/txid)", (double) bytes[2] / c.keys()))));
  }

  /** The fewer-file stores' table; adds them to {@code stores}. */
  private static void printFewerFiles(BenchReport r, Builds b, Map<Integer, Path> stores) {
    List<List<String>> otherRows = new ArrayList<>();
    for (int k = 0; k < b.fewer().size(); k++) {
      SyntheticStore.Built built = b.others().get(k);
      stores.put(b.fewer().get(k), built.dir());
      otherRows.add(
          List.of(
              Integer.toString(b.fewer().get(k)),
              String.format(Locale.ROOT, "%.1f (one pass for all)", b.othersSeconds()),
              mib(built.fileFilterBytes())));
    }
    r.table(
        "the same txids split over fewer block files (per-file filters built in one pass beside the"
            + " main store's build, summary shared)",
        List.of("files", "build s", "per-file filters"),
        otherRows);
  }

  /** Phases 3 and 4: lookups over every store, start-ups; then the summary lines. */
  private static Result measure(
      Config c,
      BenchReport r,
      Path tmp,
      Map<Integer, Path> stores,
      SyntheticStore.Built main,
      Path plain,
      long plainBytes,
      double buildSeconds,
      long peakRss)
      throws IOException, InterruptedException {
    SyntheticKeys txids = new SyntheticKeys(c.seed());
    Map<Integer, double[]> negative = negativeLookups(c, stores);
    List<Step> steps = new ArrayList<>();
    boolean allFound = perFileProbes(c, stores, txids, negative, steps);
    printLookups(c, r, steps);

    // 4. start-up of the service in a fresh JVM: the default store, then with per-file filters
    Startups starts = c.startupRuns() > 0 ? startups(c, r, tmp, plain, main) : null;
    double startup = starts == null ? Double.NaN : starts.plain().seconds();
    double bytesPerKey = (double) plainBytes / c.keys();
    summarize(c, r, steps, main, plainBytes, buildSeconds, peakRss, starts);
    Path oneFile = stores.get(1);
    if (starts != null && oneFile != null && c.files() != 1) {
      FileCountCost.measure(
          c, r, tmp, oneFile, new FileCountCost.Starts(c.files(), starts.plain(), starts.full()));
    }
    return new Result(buildSeconds, plainBytes, bytesPerKey, peakRss, steps, startup, allFound);
  }

  /**
   * Phase 3, first half: every store's negative lookups through the summary, one store open at a
   * time; per file count: median CPU ns, median wall ns, observed FPR, open ms.
   */
  private static Map<Integer, double[]> negativeLookups(Config c, Map<Integer, Path> stores)
      throws IOException {
    byte[] negatives = new SyntheticKeys(c.seed() * 0x9E37 + 11).keys(0, c.negatives());
    // One store open at a time: each holds verified in-memory copies of its filters (at full
    // scale 1.75 GiB of summary and 1.65 GiB of per-file filters), four at once would be 13.6 GB.
    // Every store's summary probes first, then the per-file probes: those run the per-file
    // filters' kernels (other geometries), after which the summary's call site would no longer be
    // monomorphic for the stores measured later.
    Map<Integer, double[]> negative = new LinkedHashMap<>();
    for (int files : c.steps()) {
      long opening = System.nanoTime();
      try (FilterStore st = FilterStore.open(Filled.entry(stores, files))) {
        double openMs = (System.nanoTime() - opening) / 1e6;
        double[] ns = new double[c.rounds()];
        double[] wallNs = new double[c.rounds()];
        long hits = 0;
        for (int round = -WARM_UP_ROUNDS; round < c.rounds(); round++) { // rounds < 0 warm up
          long[] h = new long[2];
          ThreadClock took = negLookups(st, negatives, c.negatives(), c.minNanos(), h);
          if (round >= 0) {
            ns[round] =
                took.cpuNanos() > 0
                    ? took.cpuNanos() / (double) h[1]
                    : took.wallNanos() / (double) h[1];
            wallNs[round] = took.wallNanos() / (double) h[1];
            hits = h[0];
          }
        }
        negative.put(
            files,
            new double[] {
              BenchReport.median(ns),
              BenchReport.median(wallNs),
              hits / (double) c.negatives(),
              openMs
            });
      }
    }
    return negative;
  }

  /**
   * Phase 3, second half: what probing every per-file filter would cost, per store, into {@code
   * steps}; whether the inserted txids sampled were all found.
   */
  private static boolean perFileProbes(
      Config c,
      Map<Integer, Path> stores,
      SyntheticKeys txids,
      Map<Integer, double[]> negative,
      List<Step> steps)
      throws IOException {
    boolean allFound = true;
    byte[] few = new SyntheticKeys(c.seed() * 0x9E37 + 11).keys(0, c.perFileProbeKeys());
    for (int files : c.steps()) {
      try (FilterStore st = FilterStore.open(Filled.entry(stores, files))) {
        if (files == c.files()) {
          // sanity: a sample of inserted txids is answered "maybe" by the summary and by its
          // file's filter
          allFound = insertedFound(st, txids, c);
        }
        ThreadClock t = ThreadClock.now();
        long candidates = 0;
        for (int k = 0; k < c.perFileProbeKeys(); k++) {
          candidates += st.candidateFiles(few, k * 32).size();
        }
        ThreadClock took = ThreadClock.now().since(t);
        double perFileNs =
            (took.cpuNanos() > 0 ? took.cpuNanos() : took.wallNanos())
                / (double) c.perFileProbeKeys();
        if (candidates < 0) {
          throw new AssertionError();
        }
        double[] neg = Filled.entry(negative, files);
        steps.add(
            new Step(
                files,
                neg[0],
                neg[1],
                neg[2],
                perFileNs,
                neg[3],
                StoreAssembly.directoryBytes(Filled.entry(stores, files))));
      }
    }
    return allFound;
  }

  /** Phase 3's table. */
  private static void printLookups(Config c, BenchReport r, List<Step> steps) {
    List<List<String>> rows = new ArrayList<>();
    for (Step s : steps) {
      rows.add(
          List.of(
              BenchReport.count(s.files()),
              String.format(Locale.ROOT, "%.1f", s.negNs()),
              String.format(Locale.ROOT, "%.1f", s.negWallNs()),
              String.format(Locale.ROOT, "%.2f", s.negNs() / steps.get(0).negNs()),
              String.format(Locale.ROOT, "%.4f", s.negFpr()),
              String.format(Locale.ROOT, "%,.0f", s.perFileProbeNs()),
              String.format(Locale.ROOT, "%.0f", s.openMs())));
    }
    r.table(
        "negative lookups as the file count grows (same "
            + BenchReport.count(c.keys())
            + " txids; "
            + BenchReport.count(c.negatives())
            + " random absent txids, one thread, median of "
            + c.rounds()
            + " rounds)",
        List.of(
            "files",
            "CPU ns/lookup",
            "wall ns/lookup",
            "vs 1 file",
            "FPR",
            "CPU ns if every per-file BBF were probed",
            "FilterStore.open ms"),
        rows);
    r.line(
        "ns per lookup in CPU time of the measuring thread (this machine is shared: wall time"
            + " beside it); 'vs 1 file' compares CPU ns.");
  }

  /** The start-ups of phase 4: the default store with and without the class archive, and full. */
  record Startups(Startup plain, Startup cold, Startup full) {}

  /** Phase 4: start-ups in fresh JVMs, and their table. */
  private static Startups startups(
      Config c, BenchReport r, Path tmp, Path plain, SyntheticStore.Built main)
      throws IOException, InterruptedException {
    Startup coldStart = startup(plain, c.startupRuns());
    Startup plainStart = startup(plain, c.startupRuns(), classDataSharing(tmp));
    Startup fullStart = startup(main.dir(), c.startupRuns(), classDataSharing(tmp));
    r.line("");
    r.line(
        "start-up (fresh JVM: JVM start, then as serve does it (StartWhileOpening.start)"
            + " FilterStore.openMappedFirst = manifest + every filter file mapped and"
            + " CRC32C-checked, on one thread while the HTTP server starts on 127.0.0.1 on"
            + " another (lookups answer 503 until the store is in), then the summary and"
            + " block-hash filters described for the gauges, until 'listening'; lookups then"
            + " answer from the verified mappings, each confirmed by a stat, until the verified"
            + " in-memory copies made behind them answer ('copies in s', from the JVM's main);"
            + " page cache warm),"
            + " median of %d runs; RSS = VmRSS once the copies answer and the mappings are freed"
            + " (anonymous part: the JVM and the verified copies). With the class data archive"
            + " ./bbf-index serve uses (-XX:+AutoCreateSharedArchive, written by one start-up"
            + " before the timed ones, as serve's first start writes it), and for the default"
            + " store also without it (the first start, or a java command line without it):",
        c.startupRuns());
    r.table(
        "start-up and memory held after start, " + BenchReport.count(c.files()) + " block files",
        List.of(
            "store",
            "filters held",
            "start-up s",
            "copies in s",
            "RSS after start",
            "of it anonymous"),
        List.of(
            plainStart.row("default (no per-file filters)"),
            coldStart.row("default, no class data archive"),
            fullStart.row("fileFilters on")));
    r.line("  breakdown, default store without the archive (last run): %s", coldStart.last());
    r.line(
        "  breakdown, default store (last run; [cpu] = CPU ms of all threads): %s",
        plainStart.last());
    r.line("  breakdown, per-file filters on (last run): %s", fullStart.last());
    r.line(
        "  not included: opening the node's block index (NodeIndex: snapshot + all 'b' records,"
            + " ~950,000 on mainnet), which a synthetic store does not have.");
    return new Startups(plainStart, coldStart, fullStart);
  }

  /** The summary lines and the targets. */
  private static void summarize(
      Config c,
      BenchReport r,
      List<Step> steps,
      SyntheticStore.Built main,
      long plainBytes,
      double buildSeconds,
      long peakRss,
      @Nullable Startups starts) {
    Startup plainStart = starts == null ? null : starts.plain();
    Startup coldStart = starts == null ? null : starts.cold();
    Startup fullStart = starts == null ? null : starts.full();
    double startup = plainStart == null ? Double.NaN : plainStart.seconds();
    double startupCpu = plainStart == null ? Double.NaN : cpuSeconds(plainStart.last());

    double bytesPerKey = (double) plainBytes / c.keys();
    r.summary("keys", c.keys());
    r.summary("files", c.files());
    for (Step s : steps) {
      r.summary("neg_lookup_ns_files_" + s.files(), s.negNs());
    }
    r.summary("build_seconds", buildSeconds);
    r.summary("peak_rss_mib", peakRss / 1048576.0);
    double summaryPerKey = (double) main.summaryBytes() / c.keys();
    r.summary("filter_bytes_total", plainBytes);
    r.summary("filter_bytes_per_key", bytesPerKey);
    r.summary("summary_bytes_per_key", summaryPerKey);
    r.summary("filter_bytes_per_key_with_file_filters", (double) main.totalBytes() / c.keys());
    r.summary("startup_seconds_" + c.files() + "_files", startup);
    r.summary("startup_cpu_seconds_" + c.files() + "_files", startupCpu);
    if (plainStart != null && coldStart != null && fullStart != null) { // all or none
      r.summary("startup_seconds_no_class_archive", coldStart.seconds());
      r.summary("startup_cpu_seconds_no_class_archive", cpuSeconds(coldStart.last()));
      r.summary("copies_in_seconds_" + c.files() + "_files", plainStart.copiedSeconds());
      r.summary("rss_after_start_mib", plainStart.rssMib());
      r.summary("startup_seconds_with_file_filters", fullStart.seconds());
      r.summary("rss_after_start_mib_with_file_filters", fullStart.rssMib());
    }
    r.line(
        "targets: startup <= 2 s: %s; filter bytes/txid <= 1.4: %s; summary bytes/txid <= 1.35:"
            + " %s",
        startup <= 2 ? "met" : "MISSED",
        bytesPerKey <= 1.4 ? "met" : "MISSED",
        summaryPerKey <= 1.35 ? "met" : "MISSED");
  }

  /**
   * Every 1,000th inserted txid (at most 100,000) is a "maybe" for the summary and its file's
   * filter.
   */
  private static boolean insertedFound(FilterStore store, SyntheticKeys txids, Config c) {
    byte[] k = new byte[32];
    int files = store.manifest().files().size();
    long step = Math.max(1, c.keys() / 100_000);
    for (long i = 0; i < c.keys(); i += step) {
      txids.key(i, k, 0);
      if (!store.mightContainTx(k, 0)) {
        return false;
      }
      int file = fileOf(i, c.keys(), files);
      if (!store.fileFilter(file).orElseThrow().mightContain(k, 0)) {
        return false;
      }
    }
    return true;
  }

  /** The file whose index range holds key {@code i} ({@link SyntheticKeys#rangeStart}). */
  static int fileOf(long i, long keys, int files) {
    int f = (int) Math.min(files - 1, Math.multiplyExact(i, files) / Math.max(1, keys));
    while (f > 0 && SyntheticKeys.rangeStart(keys, files, f) > i) {
      f--;
    }
    while (f + 1 < files && SyntheticKeys.rangeStart(keys, files, f + 1) <= i) {
      f++;
    }
    return f;
  }

  /**
   * Negative lookups through {@link FilterStore#mightContainTx}, whole passes for at least {@code
   * minNanos}; {@code out[0]}: "maybe"s per pass, {@code out[1]}: lookups made.
   */
  private static ThreadClock negLookups(
      FilterStore store, byte[] keys, int count, long minNanos, long[] out) {
    long ops = 0;
    long hits = 0;
    ThreadClock start = ThreadClock.now();
    ThreadClock took;
    do {
      for (int i = 0, off = 0; i < count; i++, off += 32) {
        if (store.mightContainTx(keys, off)) {
          hits++;
        }
      }
      ops += count;
      took = ThreadClock.now().since(start);
    } while (took.wallNanos() < minNanos);
    out[0] = hits * count / ops;
    out[1] = ops;
    return took;
  }

  /**
   * Start-ups of one store: median seconds to 'listening', the last run's probe line, and the
   * median seconds until the verified copies answer.
   *
   * @param runs seconds of each run
   */
  record Startup(double seconds, double[] runs, String last, double copiedSeconds) {
    /** The last probe line's {@code NAME=value} figure, NaN when absent. */
    double figure(String name) {
      return probeFigure(last, name);
    }

    /** A probe line's {@code NAME=value} figure, NaN when absent. */
    static double probeFigure(String probeLine, String name) {
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("\\b" + name + "=([0-9.]+)").matcher(probeLine);
      return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }

    double rssMib() {
      return figure("rss_mib");
    }

    List<String> row(String what) {
      return List.of(
          what,
          String.format(Locale.ROOT, "%.0f", figure("filters")),
          String.format(Locale.ROOT, "%.2f %s", seconds, java.util.Arrays.toString(runs)),
          String.format(Locale.ROOT, "%.2f", copiedSeconds),
          String.format(Locale.ROOT, "%.1f MiB", rssMib()),
          String.format(Locale.ROOT, "%.1f MiB", figure("rss_anon_mib")));
    }
  }

  /** {@code runs} fresh-JVM start-ups over {@code store}. */
  static Startup startup(Path store, int runs) throws IOException, InterruptedException {
    return startup(store, runs, List.of());
  }

  /**
   * The JVM flags {@code ./bbf-index serve} adds (its class data archive), with the archive in
   * {@code dir}: the first JVM started with them writes it at exit, the next ones map it.
   */
  static List<String> classDataSharing(Path dir) {
    for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      if (java.nio.file.Files.isDirectory(Path.of(entry))) {
        // the JVM archives classes from jars only (as the launcher runs serve); from a build's
        // class directories (the tests) it fails at exit: those start-ups run without it
        return List.of();
      }
    }
    return classDataArchiveFlags(dir.resolve("startup-probe.jsa"));
  }

  /**
   * The class data archive flags of {@code ./bbf-index serve}, the archive at {@code archive}: the
   * first JVM started with them writes it at exit, the next ones map it.
   */
  static List<String> classDataArchiveFlags(Path archive) {
    return List.of(
        "-XX:+AutoCreateSharedArchive",
        "-XX:SharedArchiveFile=" + archive,
        "-Xlog:cds=off",
        "-Xlog:cds+dynamic=off");
  }

  /**
   * {@code runs} fresh-JVM start-ups over {@code store} with the extra JVM {@code flags}; with the
   * class data archive ({@link #classDataSharing}) one start-up before them, not timed, writes it,
   * as serve's first start does.
   */
  static Startup startup(Path store, int runs, List<String> flags)
      throws IOException, InterruptedException {
    List<String> detail = new ArrayList<>();
    if (!flags.isEmpty()) {
      startupSeconds(store, flags, new ArrayList<>());
    }
    double[] seconds = new double[runs];
    for (int k = 0; k < runs; k++) {
      seconds[k] = startupSeconds(store, flags, detail);
    }
    double[] copied =
        detail.stream().mapToDouble(line -> Startup.probeFigure(line, "copied_ms") / 1e3).toArray();
    return new Startup(
        BenchReport.median(seconds),
        seconds,
        detail.isEmpty() ? "" : detail.get(detail.size() - 1),
        copied.length == 0 ? Double.NaN : BenchReport.median(copied));
  }

  /**
   * Runs {@link StartupProbe} in a fresh JVM (same java, flags and class path); seconds to its
   * listening line.
   */
  static double startupSeconds(Path store, List<String> flags, List<String> detail)
      throws IOException, InterruptedException {
    List<String> cmd =
        ChildJvm.command(flags, StartupProbe.class.getName(), List.of(store.toString()));
    long start = System.nanoTime();
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
    // the launcher sets it for this suite's build only: the probe starts as serve would
    pb.environment().remove("GLIBC_TUNABLES");
    Process p = pb.start();
    double seconds = Double.NaN;
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.startsWith("listening on ") && Double.isNaN(seconds)) {
          seconds = (System.nanoTime() - start) / 1e9;
        } else if (line.startsWith("probe: ")) {
          detail.add(line.substring(7));
        }
      }
    }
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
    }
    if (p.exitValue() != 0 || Double.isNaN(seconds)) {
      throw new IOException(
          "start-up probe failed (exit " + p.exitValue() + "): " + String.join(" ", cmd));
    }
    return seconds;
  }

  /** Sum of the {@code [cpu N]} figures (ms) of a probe line, in seconds. */
  static double cpuSeconds(String probeLine) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\\[cpu (\\d+)\\]").matcher(probeLine);
    long ms = 0;
    while (m.find()) {
      ms += Long.parseLong(m.group(1));
    }
    return ms / 1e3;
  }

  private static void resetHeapPeaks() {
    for (MemoryPoolMXBean m : ManagementFactory.getMemoryPoolMXBeans()) {
      if (m.getType() == MemoryType.HEAP) {
        m.resetPeakUsage();
      }
    }
  }

  private static long heapPeak() {
    long sum = 0;
    for (MemoryPoolMXBean m : ManagementFactory.getMemoryPoolMXBeans()) {
      if (m.getType() == MemoryType.HEAP) {
        sum += m.getPeakUsage().getUsed();
      }
    }
    return sum;
  }

  static String mib(long bytes) {
    return bytes < 0 ? "n/a" : String.format(Locale.ROOT, "%,.1f MiB", bytes / 1048576.0);
  }
}
