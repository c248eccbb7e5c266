package io.bbfindex.benchmarks.store;

import io.bbfindex.app.lookup.LookupService;
import io.bbfindex.app.lookup.TxAnswer;
import io.bbfindex.app.metrics.Metrics;
import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.benchmarks.harness.BenchTempDir;
import io.bbfindex.benchmarks.harness.CountConverter;
import io.bbfindex.benchmarks.harness.ProjectHome;
import io.bbfindex.benchmarks.harness.ThreadClock;
import io.bbfindex.benchmarks.ingest.IngestThroughputBench;
import io.bbfindex.benchmarks.synthetic.StoreAssembly;
import io.bbfindex.benchmarks.synthetic.SyntheticKeys;
import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.ingest.filterbuild.BuildOptions;
import io.bbfindex.ingest.filterbuild.ConsoleProgress;
import io.bbfindex.ingest.filterbuild.ProgressListener;
import io.bbfindex.ingest.filterbuild.TxFilterPass;
import io.bbfindex.ingest.records.DiskTxPos;
import io.bbfindex.ingest.store.FilterStore;
import io.bbfindex.ingest.store.Manifest.FileEntry;
import io.bbfindex.ingest.testing.SyntheticTxIndex;
import io.bbfindex.ingest.testing.TxIndexOnly;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bbf-index bench store [--quick] [--records N]}: what one txid lookup costs with and
 * without the filters, on a txindex in Bitcoin Core's exact format (written by {@link
 * SyntheticTxIndex} with leveldbjni), single thread.
 *
 * <ul>
 *   <li><b>product path</b>: {@link LookupService#tx} over {@link FilterStoreBackend}: the summary
 *       BBF of a real filter store ({@link FilterStore#mightContainTx}), then, only on "maybe", one
 *       LevelDB get + CDiskTxPos decode ({@link TxIndexOnly#find}, the code {@code
 *       NodeIndex.findTx} runs), plus the lookup counters;
 *   <li><b>plain LevelDB</b>: {@link TxIndexOnly#find} for every query.
 * </ul>
 *
 * Negatives are random 32-byte txids (absent); positives are txids sampled evenly from the index
 * and shuffled. Also measured, by the builder's own {@link IngestThroughputBench} on the same
 * txindex: the ingest pass ({@code 't'} rows decoded and inserted into their block file's filter
 * and the summary per CPU-second of one thread), which is the scan of the filter builder. Then the
 * same comparison on a HASHED txindex (Core v32) with its blk files: {@link HashedStoreBench}.
 */
@Command(
    name = "store",
    description = {
      "Lookups per second through the product's path (filter, then LevelDB only on \"maybe\") vs a"
          + " plain LevelDB get per query, on a generated txindex in Bitcoin Core's format; plus"
          + " the ingest rate of 't' records."
    })
public final class StoreBench implements Callable<Integer> {

  @Option(
      names = "--quick",
      description = "2,000,000 records, 3 rounds (default 10,000,000, 5 rounds)")
  boolean quick;

  @Option(
      names = "--records",
      paramLabel = "N",
      converter = CountConverter.class,
      description = "'t' records in the generated txindex")
  @Nullable Long records;

  @Option(
      names = "--hashed-records",
      paramLabel = "N",
      converter = CountConverter.OrZero.class,
      description =
          "transactions of the generated chain with a HASHED (Core v32) txindex (default"
              + " 10,000,000, --quick 1,000,000; 0: skip)")
  @Nullable Long hashedRecords;

  @Option(
      names = "--unsalted",
      description =
          "build the store with the public, unsalted bit derivation (default: salted, as the"
              + " product builds stores); the salted-vs-unsalted probe table is printed either way")
  boolean unsalted;

  @Option(
      names = "--fpr",
      paramLabel = "P",
      description =
          "target false-positive rate of the store's filters, as ingest/serve --fpr (default"
              + " 0.01): a lower one costs bits a txid and saves index reads on negatives (the"
              + " table 'where a negative's time goes' shows the split)")
  @Nullable Double fpr;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "this help")
  boolean help;

  /** What to run; {@code fpr} is the store's target FPR (the product's default unless --fpr). */
  record Config(
      long records,
      int queries,
      long minNanosPerRound,
      int rounds,
      long seed,
      boolean quick,
      boolean unsalted,
      double fpr) {
    /** Salted, at the product's default FPR, as the product builds stores. */
    Config(long records, int queries, long minNanosPerRound, int rounds, long seed, boolean quick) {
      this(
          records, queries, minNanosPerRound, rounds, seed, quick, false, BuildOptions.DEFAULT_FPR);
    }

    static Config of(boolean quick) {
      return quick
          ? new Config(2_000_000, 100_000, 300_000_000L, 3, 0x5702EL, true)
          : new Config(10_000_000, 200_000, 1_000_000_000L, 5, 0x5702EL, false);
    }

    Config withRecords(long r) {
      return new Config(r, queries, minNanosPerRound, rounds, seed, quick, unsalted, fpr);
    }

    Config withUnsalted(boolean u) {
      return new Config(records, queries, minNanosPerRound, rounds, seed, quick, u, fpr);
    }

    Config withFpr(double f) {
      return new Config(records, queries, minNanosPerRound, rounds, seed, quick, unsalted, f);
    }
  }

  /**
   * What was measured (operations per second are medians over rounds).
   *
   * @param negAbsentByFilter negatives the filter answered "no" (no LevelDB read)
   * @param negLeveldbReads LevelDB reads the product path made for one pass over the negatives
   * @param posFoundExact positives the product path found at exactly the location the plain get
   *     gives
   */
  record Result(
      long records,
      double ingestRecordsPerSecond,
      double productNegPerSecond,
      double plainNegPerSecond,
      double productPosPerSecond,
      double plainPosPerSecond,
      int negatives,
      int negAbsentByFilter,
      long negLeveldbReads,
      int positives,
      int posFoundExact) {}

  @Spec CommandSpec spec;

  StoreBench() {}

  @Override
  public Integer call() throws IOException {
    Config c = Config.of(quick).withUnsalted(unsalted);
    if (records != null) {
      c = c.withRecords(records);
    }
    if (fpr != null) {
      if (!(fpr >= 1e-9 && fpr <= 0.5)) {
        throw new ParameterException(
            spec.commandLine(), "--fpr must be in [1e-9, 0.5], got " + fpr);
      }
      c = c.withFpr(fpr);
    }
    BenchReport report = new BenchReport(c.quick() ? "store-quick" : "store", System.out);
    try (BenchTempDir tmp = BenchTempDir.create("bbf-bench-store-")) {
      run(c, report, tmp.path(), new ConsoleProgress());
      long hashed = hashedRecords != null ? hashedRecords : c.quick() ? 1_000_000 : 10_000_000;
      if (hashed > 0) {
        HashedStoreBench.run(c, hashed, report, tmp.path());
      }
    }
    report.finish(ProjectHome.home());
    return 0;
  }

  static Result run(Config c, BenchReport r, Path tmp, ProgressListener progress)
      throws IOException {
    printPlan(c, r);

    // salted as the product's stores are (a secret salt per store), unless --unsalted
    BuildOptions opts =
        BuildOptions.defaults()
            .withTargetFpr(c.fpr())
            .withSalt(c.unsalted() ? 0 : new SplittableRandom().nextLong() | 1);
    r.line(
        "store derivation: %s; target FPR %s%s",
        c.unsalted() ? "unsalted (--unsalted)" : "salted (the default)",
        c.fpr(),
        c.fpr() == BuildOptions.DEFAULT_FPR ? " (the default)" : " (--fpr)");
    long t0 = System.nanoTime();
    // laid out as IngestThroughputBench expects (DIR/RECORDS-SEED), so it reuses this txindex
    Path ingestDir = tmp.resolve("ingest");
    SyntheticTxIndex.Result gen =
        SyntheticTxIndex.generate(
            ingestDir.resolve(c.records() + "-" + c.seed()),
            SyntheticTxIndex.Params.mainnetLike(c.records(), c.seed()),
            null);
    r.line(
        "generated %s records in %d blk files in %.1f s",
        BenchReport.count(gen.records()), gen.perFile().length, (System.nanoTime() - t0) / 1e9);

    // 1. ingest: the build helper's IngestThroughputBench on this txindex (the builder's scan, one
    // thread)
    r.line("");
    r.line(
        "ingest (io.bbfindex.benchmarks.ingest.IngestThroughputBench on this txindex: 't' records"
            + " decoded and inserted into their block file's BBF and the summary BBF, one"
            + " thread):");
    double ingest = ingestRecordsPerSecond(r, ingestDir, c);

    try (TxIndexOnly txindex = TxIndexOnly.open(gen.txindexDir(), tmp.resolve("work"));
        TxIndexOnly asCore = BloomLevelDbCost.openAsCoreWritesIt(r, gen.txindexDir(), tmp)) {
      // the store the lookups go through: one scan of the builder's pass, positives sampled on the
      // way
      List<byte[]> positives = new ArrayList<>(c.queries() + 1);
      Path storeDir = buildStore(c, tmp, txindex, gen, opts, progress, positives);

      // 2. lookups
      SplittableRandom rnd = new SplittableRandom(c.seed() ^ 0x1234);
      byte[][] pos = shuffled(positives, rnd);
      byte[][] neg = randomKeys(c.queries(), c.seed() * 31 + 7);
      try (FilterStore store = FilterStore.open(storeDir)) {
        Result result = measure(c, r, txindex, asCore, store, pos, neg, ingest);
        SaltCost.measure(c, r, store.summaryFilter().geometry(), pos, neg);
        BloomLevelDbCost.measure(
            c,
            r,
            gen.txindexDir(),
            tmp,
            pos,
            neg,
            result.productNegPerSecond(),
            new BloomLevelDbCost.Refuting(
                store, asCore.obfuscation(), productPath(store, asCore), asCore::find));
        return result;
      }
    }
  }

  /** {@link LookupService#tx} over the store and leveldbjni, as {@link #measure} times it. */
  private static Predicate<byte[]> productPath(FilterStore store, TxIndexOnly txindex) {
    LookupService lookups =
        new LookupService(
            new FilterStoreBackend(store, txindex),
            new Metrics(new SimpleMeterRegistry(), "bench"));
    return k -> lookups.tx(k).isPresent();
  }

  /**
   * @param txindex the generated txindex (leveldbjni wrote it: no filter blocks), read by the plain
   *     LevelDB get
   * @param asCore the product path's txindex: the same rows as Core writes them, with Bloom filter
   *     blocks ({@link BloomLevelDbCost#openAsCoreWritesIt}), or {@code txindex} without libleveldb
   */
  private static Result measure(
      Config c,
      BenchReport r,
      TxIndexOnly txindex,
      TxIndexOnly asCore,
      FilterStore store,
      byte[][] pos,
      byte[][] neg,
      double ingest) {
    FilterStoreBackend backend = new FilterStoreBackend(store, asCore);
    LookupService lookups =
        new LookupService(backend, new Metrics(new SimpleMeterRegistry(), "bench"));
    Predicate<byte[]> product = k -> lookups.tx(k).isPresent();
    Predicate<byte[]> plain = k -> txindex.find(k).isPresent();

    long refutedBefore = asCore.refutedGets();
    Checked checked = check(lookups, backend, txindex, store, pos, neg);
    long refuted = asCore.refutedGets() - refutedBefore; // positives are never refuted
    int negAbsent = checked.negAbsent();
    long negReads = checked.negReads();
    int posExact = checked.posExact();
    double[][][] rates = timedRounds(c, pos, neg, product, plain);
    double[][] cpu = rates[0];
    double[][] wall = rates[1];
    double pn = BenchReport.median(cpu[0]);
    double ln = BenchReport.median(cpu[1]);
    double pp = BenchReport.median(cpu[2]);
    double lp = BenchReport.median(cpu[3]);
    printLookups(c, r, pos, neg, cpu, wall, negReads);
    r.line(
        "rates per CPU-second of the measuring thread (ThreadMXBean; LevelDB's JNI work runs on"
            + " it): what one core of its own would do; wall rates beside them show how much of a"
            + " core this shared machine gave.");
    r.line(
        "negatives answered by the filter alone: %d of %d (observed FPR %.4f; the summary is sized"
            + " for %s at %.2fx its keys); positives found at their exact location: %d of %d",
        negAbsent,
        neg.length,
        1 - (double) negAbsent / neg.length,
        c.fpr(),
        BuildOptions.defaults().summaryHeadroom(),
        posExact,
        pos.length);
    r.line(
        "of the negatives' %d index reads (false \"maybe\"s), %d were refuted by the txindex"
            + " tables' Bloom filter blocks without a leveldbjni get (the column above counts"
            + " both, as the product's leveldbReads does)",
        negReads, refuted);
    r.summary(
        "neg_false_maybes_refuted_by_table_bloom", negReads == 0 ? 0 : (double) refuted / negReads);
    NegativeCost.measure(c, r, store, lookups, neg, 1e9 / pn);
    r.summary("records", c.records());
    r.summary("neg_speedup_over_leveldb", pn / ln);
    r.summary("pos_overhead_over_leveldb", lp / pp);
    r.summary("neg_lookups_per_second", pn);
    r.summary("pos_lookups_per_second", pp);
    r.summary("leveldb_gets_per_second_neg", ln);
    r.summary("leveldb_gets_per_second_pos", lp);
    r.summary("ingest_records_per_second", ingest);
    r.line(
        "pos_overhead_over_leveldb = time per positive lookup through the product path / time per"
            + " plain get (1.00 = no overhead); neg_speedup_over_leveldb = negative lookups/s"
            + " through the product path / plain gets/s.");
    r.line(
        "ingest target: >= 1,000,000 records/s on one core: %s", ingest >= 1e6 ? "met" : "MISSED");
    return new Result(
        c.records(), ingest, pn, ln, pp, lp, neg.length, negAbsent, negReads, pos.length, posExact);
  }

  /** The first lines: what is measured, on what, and what it does not say. */
  private static void printPlan(Config c, BenchReport r) {
    r.line(
        "bbf-index bench store%s: filter + LevelDB vs plain LevelDB, one thread",
        c.quick() ? " --quick" : "");
    r.environment();
    r.line(
        "txindex: %s 't' records (%s), generated by SyntheticTxIndex in Bitcoin Core's exact format"
            + " (indexes/txindex, .ldb tables, VARINT CDiskTxPos values, 'B' locator), mainnet-like"
            + " layout (2,500 tx/block, 128 MiB blk files)",
        BenchReport.count(c.records()),
        c.quick() ? "--quick: scaled down from 10,000,000" : "full size");
    r.line(
        "LevelDB: leveldbjni-all 1.8 (LevelDB 1.8), opened as the product opens it (private"
            + " snapshot, paranoid checks, no compression, reads with verify_checksums as Core"
            + " does).");
    r.line(
        "NOTE: Core configures its LevelDBs with a 10-bit/key Bloom filter policy; leveldbjni 1.8"
            + " has none (BITCOIN-FORMATS.md section 9), so the generator (leveldbjni) writes no"
            + " filter blocks and the plain-LevelDB get here searches the table index and reads a"
            + " data block for a negative. The product path reads the same rows rewritten as Core"
            + " writes them, with Core's NewBloomFilterPolicy(10), when libleveldb1d is installed:"
            + " its snapshot refutes a false \"maybe\" from those tables' Bloom filter blocks, in"
            + " Java, before leveldbjni's get (LevelDbSnapshot, TableFilters).");
  }

  /**
   * The filter store the lookups go through, built from {@code txindex} in one scan of the
   * builder's pass (with the builder's sizing, through {@link StoreAssembly}); the positives
   * sampled on the way go into {@code positives}.
   */
  private static Path buildStore(
      Config c,
      Path tmp,
      TxIndexOnly txindex,
      SyntheticTxIndex.Result gen,
      BuildOptions opts,
      ProgressListener progress,
      List<byte[]> positives)
      throws IOException {
    int sampleEvery = (int) Math.max(1, c.records() / c.queries());
    Path storeDir = java.nio.file.Files.createDirectories(tmp.resolve("filters"));
    BlockedBloomFilter[] byFile = new BlockedBloomFilter[gen.perFile().length];
    for (int f = 0; f < byFile.length; f++) {
      byFile[f] = StoreAssembly.newFileFilter(gen.perFile()[f], opts);
    }
    try (BlockedBloomFilter summary = StoreAssembly.newSummary(gen.records(), opts)) {
      TxFilterPass scan =
          new TxFilterPass(
              byFile, summary, null, progress, "build the filter store", gen.records());
      long[] row = new long[1];
      txindex.forEachTx(
          (txid, file, pos, off) -> {
            scan.accept(txid, file, pos, off);
            if (row[0]++ % sampleEvery == 0 && positives.size() < c.queries()) {
              positives.add(txid.clone());
            }
          });
      scan.finish();
      if (scan.records() != gen.records()) {
        throw new IllegalStateException(
            "scan saw " + scan.records() + " rows, generated " + gen.records());
      }
      List<FileEntry> files = new ArrayList<>();
      for (int f = 0; f < byFile.length; f++) {
        files.add(
            StoreAssembly.writeFileFilter(storeDir, f, byFile[f], gen.perFile()[f], 1, f, opts));
      }
      var se = StoreAssembly.writeSummary(storeDir, summary, gen.records(), byFile.length, opts);
      var be =
          StoreAssembly.writeBlockHashes(
              storeDir, new SyntheticKeys(~c.seed()), Math.max(1, gen.records() / 2_500), opts);
      StoreAssembly.writeManifest(
          storeDir,
          "synthetic txindex " + gen.txindexDir(),
          opts,
          gen.records(),
          be.keys(),
          se,
          be,
          files);
    } finally {
      for (BlockedBloomFilter f : byFile) {
        f.close();
      }
    }
    return storeDir;
  }

  /** Negatives and positives checked untimed: how many each path answered right. */
  record Checked(int negAbsent, long negReads, int posExact) {}

  private static Checked check(
      LookupService lookups,
      FilterStoreBackend backend,
      TxIndexOnly txindex,
      FilterStore store,
      byte[][] pos,
      byte[][] neg) {
    // correctness first (untimed): negatives never found, positives found exactly where the index
    // says
    long readsBefore = backend.leveldbReads();
    int negAbsent = 0;
    for (byte[] k : neg) {
      if (!store.mightContainTx(k, 0)) {
        negAbsent++;
      }
      if (lookups.tx(k).isPresent()) {
        throw new IllegalStateException(
            "a random txid was found: the benchmark's negatives are not absent");
      }
    }
    long negReads = backend.leveldbReads() - readsBefore;
    int posExact = 0;
    for (byte[] k : pos) {
      Optional<TxAnswer> a = lookups.tx(k);
      Optional<DiskTxPos> p = txindex.find(k);
      if (a.isPresent()
          && p.isPresent()
          && a.get().file() == p.get().file()
          && a.get().dataPos() == p.get().dataPos()
          && a.get().txOffset() == p.get().txOffset()) {
        posExact++;
      }
    }
    return new Checked(negAbsent, negReads, posExact);
  }

  /**
   * One warm-up round, then {@code c.rounds()} timed ones of the four measurements (negatives and
   * positives, product and plain); lookups per CPU-second and per wall second, by measurement and
   * round.
   */
  private static double[][][] timedRounds(
      Config c, byte[][] pos, byte[][] neg, Predicate<byte[]> product, Predicate<byte[]> plain) {
    double[][] cpu = new double[4][c.rounds()];
    double[][] wall = new double[4][c.rounds()];
    for (int round = -1; round < c.rounds(); round++) { // round -1 warms up
      Timed[] took = {
        timed(neg, product, c.minNanosPerRound(), false),
        timed(neg, plain, c.minNanosPerRound(), false),
        timed(pos, product, c.minNanosPerRound(), true),
        timed(pos, plain, c.minNanosPerRound(), true)
      };
      if (round >= 0) {
        for (int m = 0; m < 4; m++) {
          cpu[m][round] = took[m].perCpuSecond();
          wall[m][round] = took[m].perWallSecond();
        }
      }
    }
    return new double[][][] {cpu, wall};
  }

  /** The lookup table. */
  private static void printLookups(
      Config c,
      BenchReport r,
      byte[][] pos,
      byte[][] neg,
      double[][] cpu,
      double[][] wall,
      long negReads) {
    double pn = BenchReport.median(cpu[0]);
    double ln = BenchReport.median(cpu[1]);
    double pp = BenchReport.median(cpu[2]);
    double lp = BenchReport.median(cpu[3]);
    r.table(
        "lookups, one thread (median of "
            + c.rounds()
            + " rounds over "
            + BenchReport.count(neg.length)
            + " negatives / "
            + BenchReport.count(pos.length)
            + " positives)",
        List.of(
            "query",
            "path",
            "lookups per CPU-s",
            "CPU ns/lookup",
            "lookups per wall s",
            "LevelDB reads/lookup"),
        List.of(
            List.of(
                "negative",
                "filter, LevelDB on maybe",
                BenchReport.count((long) pn),
                ns(pn),
                BenchReport.count((long) BenchReport.median(wall[0])),
                String.format(java.util.Locale.ROOT, "%.4f", (double) negReads / neg.length)),
            List.of(
                "negative",
                "plain LevelDB get",
                BenchReport.count((long) ln),
                ns(ln),
                BenchReport.count((long) BenchReport.median(wall[1])),
                "1"),
            List.of(
                "positive",
                "filter, LevelDB on maybe",
                BenchReport.count((long) pp),
                ns(pp),
                BenchReport.count((long) BenchReport.median(wall[2])),
                "1"),
            List.of(
                "positive",
                "plain LevelDB get",
                BenchReport.count((long) lp),
                ns(lp),
                BenchReport.count((long) BenchReport.median(wall[3])),
                "1")));
  }

  /** {@code count} synthetic keys of {@code seed}, each in an array of its own (the negatives). */
  static byte[][] randomKeys(int count, long seed) {
    byte[][] keys = new byte[count][];
    SyntheticKeys source = new SyntheticKeys(seed);
    for (int i = 0; i < count; i++) {
      keys[i] = new byte[32];
      source.key(i, keys[i], 0);
    }
    return keys;
  }

  /** Lookups made and the time they took. */
  record Timed(long ops, ThreadClock took) {
    double perCpuSecond() {
      return took.perCpuSecond(ops);
    }

    double perWallSecond() {
      return took.perWallSecond(ops);
    }
  }

  /** Whole passes over {@code keys} until at least {@code minNanos} of wall time passed. */
  static Timed timed(byte[][] keys, Predicate<byte[]> op, long minNanos, boolean present) {
    long passes = 0;
    long found = 0;
    ThreadClock start = ThreadClock.now();
    ThreadClock took;
    do {
      for (byte[] k : keys) {
        if (op.test(k)) {
          found++;
        }
      }
      passes++;
      took = ThreadClock.now().since(start);
    } while (took.wallNanos() < minNanos);
    // use the answers so the JIT cannot drop the work, and check them cheaply
    if (found != (present ? passes * keys.length : 0)) {
      throw new IllegalStateException(
          found
              + " of "
              + passes * keys.length
              + " lookups found, expected "
              + (present ? "all" : "none"));
    }
    return new Timed(passes * keys.length, took);
  }

  /**
   * Runs {@link IngestThroughputBench} (median of its one-thread scans, per CPU-second) on the
   * txindex in {@code dir}, its lines indented into the report.
   */
  private static double ingestRecordsPerSecond(BenchReport r, Path dir, Config c)
      throws IOException {
    return IngestThroughputBench.measure(
        dir, c.records(), c.seed(), c.quick() ? 3 : 5, 0, line -> r.line("  " + line));
  }

  private static byte[][] shuffled(List<byte[]> keys, SplittableRandom rnd) {
    byte[][] a = keys.toArray(new byte[0][]);
    for (int i = a.length - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      byte[] t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
    return a;
  }

  static String ns(double opsPerSecond) {
    return String.format(java.util.Locale.ROOT, "%.0f", 1e9 / opsPerSecond);
  }
}
