package io.bbfindex.benchmarks.ingest;

import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.benchmarks.harness.BenchTempDir;
import io.bbfindex.benchmarks.harness.CountConverter;
import io.bbfindex.benchmarks.harness.ProjectHome;
import io.bbfindex.filters.BbfSizing;
import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.ingest.filterbuild.ProgressListener;
import io.bbfindex.ingest.filterbuild.TxFilterPass;
import io.bbfindex.ingest.testing.SyntheticTxIndex;
import io.bbfindex.ingest.testing.TxIndexOnly;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Benchmark (not a test): how many txindex {@code 't'} records per second one thread decodes and
 * inserts into the filters, on a synthetic txindex of {@code --records} rows (10 million by
 * default) written by {@link SyntheticTxIndex} in Core's format. Each measured scan is the
 * builder's real hot path: LevelDB iteration over a private snapshot, Core VARINT decoding ({@code
 * TxIndexScan}), then {@link TxFilterPass} inserting every txid into its block file's BBF and into
 * the summary BBF (both sized at 1 % as the builder sizes them).
 *
 * <pre>
 *   java --add-modules=jdk.incubator.vector --enable-native-access=ALL-UNNAMED -cp ... \
 *     io.bbfindex.benchmarks.ingest.IngestThroughputBench [--dir target/bench-txindex] [--records 10000000]
 *     [--scans 3] [--seed 1] [--decoders N]
 * </pre>
 *
 * The generated index is kept in {@code --dir} and reused by later runs with the same record count
 * and seed. Prints one human line per scan, then {@code summary: ingest_records_per_second N} (the
 * median one-thread scan). {@code --decoders N} adds one wall-clock scan split over N decoder
 * threads feeding one inserter (the builder's parallel path). Then, unless {@code --blk-mib 0}, the
 * ingest from block data ({@link BlkIngestBench}): {@code summary: blk_ingest_mb_per_second},
 * {@code sha256_mb_per_second} and {@code blk_ingest_over_sha256_same_bytes} (target >= 0.5).
 */
@Command(
    name = "ingest",
    description = {
      "'t' records per CPU-second one thread decodes and inserts into the filters (the builder's"
          + " scan), on a synthetic txindex in Core's format; then MB/s of generated blk data"
          + " turned into filters (hashed/mixed txindex) next to SHA-256's own MB/s over the same"
          + " bytes."
    })
public final class IngestThroughputBench implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(names = "--quick", description = "2,000,000 records (default 10,000,000)")
  boolean quick;

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description =
          "where the generated txindex is kept and reused " + "(default: target/bench-txindex)")
  Path dir = Path.of("target", "bench-txindex");

  @Option(
      names = "--records",
      paramLabel = "N",
      converter = CountConverter.class,
      description = "'t' records in the txindex")
  @Nullable Long records;

  @Option(
      names = "--scans",
      paramLabel = "N",
      description = "measured one-thread scans (default 3)")
  int scans = 3;

  @Option(
      names = "--seed",
      paramLabel = "N",
      description = "seed of the generated txids (default 1)")
  long seed = 1;

  @Option(
      names = "--decoders",
      paramLabel = "N",
      description =
          "also one wall-clock scan with N decoder threads feeding one inserter (default 0: none)")
  int decoders;

  @Option(
      names = "--blk-mib",
      paramLabel = "N",
      description =
          "MiB of generated blk data for the block-data "
              + "ingest (default 768, --quick 192; 0: skip it)")
  @Nullable Long blkMib;

  @Option(
      names = "--threads",
      paramLabel = "N",
      description =
          "hashing threads of the block-data ingest and of " + "the SHA-256 reference (default 2)")
  int threads = 2;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "this help")
  boolean help;

  IngestThroughputBench() {}

  @Override
  public Integer call() throws IOException {
    if (scans < 1 || seed < 0 || decoders < 0 || threads < 1 || (blkMib != null && blkMib < 0)) {
      throw new ParameterException(
          spec.commandLine(),
          "--scans and --threads must be >= 1, --seed, --decoders and " + "--blk-mib >= 0");
    }
    long n = records != null ? records : quick ? 2_000_000 : 10_000_000;
    BenchReport report = new BenchReport(quick ? "ingest-quick" : "ingest", System.out);
    report.line(
        "bbf-index bench ingest%s: %,d 't' records, %d scan(s)", quick ? " --quick" : "", n, scans);
    report.environment();
    long median = measure(dir, n, seed, scans, decoders, line -> report.line(line));
    report.summary("ingest_records_per_second", Long.toString(median));
    long mib = blkMib != null ? blkMib : quick ? 192 : 768;
    if (mib > 0) {
      report.line("");
      report.line(
          "ingest from block data (hashed or mixed txindex: no txids in the index): the product's"
              + " BlockDataTxSource on %d threads vs JDK SHA-256 over the same blk bytes on %d"
              + " threads",
          threads, threads);
      try (BenchTempDir tmp = BenchTempDir.create("bbf-bench-blk-")) {
        long fileBytes = Math.min(mib << 20, (quick ? 48L : 128L) << 20);
        // a quarter file short of the total: blocks that do not fit start a new file, so the last
        // one would be a stub
        BlkIngestBench.Result blk =
            BlkIngestBench.measure(
                tmp.path(),
                (mib << 20) - fileBytes / 4,
                fileBytes,
                threads,
                quick ? 7 : 9,
                seed,
                line -> report.line("  " + line));
        report.summary("blk_ingest_mb_per_second", blk.ingestMbPerSecond());
        report.summary("sha256_mb_per_second", blk.sha256MbPerSecond());
        report.summary("blk_ingest_over_sha256_same_bytes", blk.ratio());
        report.summary("blk_ingest_over_sha256_per_cpu_second", blk.cpuRatio());
        report.summary("blk_ingest_with_own_index_mb_per_second", blk.withOwnIndexMbPerSecond());
        report.summary("own_index_ingest_time_factor", blk.ownIndexCost());
        report.summary("own_index_ingest_cpu_factor", blk.ownIndexCpuCost());
      }
    }
    report.finish(ProjectHome.home());
    return 0;
  }

  /**
   * Generates (or reuses) the txindex of {@code records} rows and {@code seed} under {@code
   * dir/RECORDS-SEED}, then scans it {@code scans} times on one thread, printing one line a scan to
   * {@code out}.
   *
   * @return the median one-thread rate, records per CPU-second
   * @throws IOException if the txindex cannot be written or opened
   */
  public static long measure(
      Path dir, long records, long seed, int scans, int decoders, Consumer<String> out)
      throws IOException {
    Path data = dir.resolve(records + "-" + seed);
    long[] perFile;
    if (Files.exists(data.resolve(SyntheticTxIndex.INFO_FILE))) {
      perFile = SyntheticTxIndex.readPerFile(data);
      out.accept(
          String.format(
              Locale.ROOT,
              "reusing the synthetic txindex in %s (%d blk files)",
              data,
              perFile.length));
    } else {
      long t0 = System.nanoTime();
      perFile =
          SyntheticTxIndex.generate(data, SyntheticTxIndex.Params.mainnetLike(records, seed), null)
              .perFile();
      double s = (System.nanoTime() - t0) / 1e9;
      out.accept(
          String.format(
              Locale.ROOT,
              "generated %,d 't' records over %d blk files in %s in %.1f s " + "(%,.0f records/s)",
              records,
              perFile.length,
              data,
              s,
              records / s));
    }
    long[] measured = new long[scans];
    try (TxIndexOnly idx =
        TxIndexOnly.open(data.resolve("indexes").resolve("txindex"), dir.resolve("work"))) {
      long decodeOnly = decodeOnly(idx);
      out.accept(
          String.format(
              Locale.ROOT, "decode only (warm-up): %,d records per CPU-second", decodeOnly));
      for (int s = 0; s < scans; s++) {
        measured[s] = scan(idx, perFile, records, s + 1, 0, out);
      }
      if (decoders > 0) {
        scan(idx, perFile, records, scans + 1, decoders, out);
      }
    }
    long[] sorted = measured.clone();
    Arrays.sort(sorted);
    long median = sorted[sorted.length / 2];
    out.accept(
        String.format(
            Locale.ROOT,
            "ingest: %,d 't' records decoded and inserted (per-file + summary BBF, 1 %%) on one"
                + " thread: median %,d records per CPU-second over %d scans (best %,d); load"
                + " average %.1f on %d cores",
            records,
            median,
            scans,
            sorted[sorted.length - 1],
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
            Runtime.getRuntime().availableProcessors()));
    return median;
  }

  /** A scan that only decodes (no filter), also warming up the JIT and the page cache. */
  private static long decodeOnly(TxIndexOnly idx) {
    long[] n = {0, 0};
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long cpu0 = threads.getCurrentThreadCpuTime();
    idx.forEachTx(
        (txid, file, pos, off) -> {
          n[0]++;
          n[1] += txid[0] + file + pos + off; // keep the decoded fields alive
        });
    double s = (threads.getCurrentThreadCpuTime() - cpu0) / 1e9;
    if (n[1] == Long.MIN_VALUE) {
      System.out.println(n[1]); // never: keeps the JIT from dropping the loop
    }
    return Math.round(n[0] / s);
  }

  /**
   * One measured scan with fresh filters; returns records per CPU-second of the scanning thread
   * (decoding and LevelDB's iteration both run on it, in Java and JNI). On a shared machine the
   * wall-clock rate measures the other processes too, so both are printed and the CPU-time rate is
   * the one-core figure.
   */
  private static long scan(
      TxIndexOnly idx,
      long[] perFile,
      long records,
      int number,
      int decoders,
      Consumer<String> out) {
    BlockedBloomFilter[] byFile = new BlockedBloomFilter[perFile.length];
    for (int f = 0; f < perFile.length; f++) {
      byFile[f] = BlockedBloomFilter.create(BbfSizing.forTarget(Math.max(1, perFile[f]), 0.01), 0);
    }
    try (BlockedBloomFilter summary =
        BlockedBloomFilter.create(BbfSizing.forTarget((long) Math.ceil(records * 1.25), 0.01), 0)) {
      TxFilterPass pass =
          new TxFilterPass(byFile, summary, null, ProgressListener.NONE, "bench", records);
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      long cpu0 = threads.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      if (decoders == 0) {
        idx.forEachTx(pass);
      } else {
        TxFilterPass.scanInParallel(idx::forEachTx, decoders, pass);
      }
      double s = (System.nanoTime() - t0) / 1e9;
      double cpu = (threads.getCurrentThreadCpuTime() - cpu0) / 1e9;
      requireEveryRow(pass, perFile);
      long rate = Math.round(pass.records() / cpu);
      if (decoders > 0) {
        out.accept(
            String.format(
                Locale.ROOT,
                "scan %d with %d decoder threads + 1 inserter: %,d records in %.2f s "
                    + "wall (%,d records/s)",
                number,
                decoders,
                pass.records(),
                s,
                Math.round(pass.records() / s)));
        return Math.round(pass.records() / s);
      }
      out.accept(
          String.format(
              Locale.ROOT,
              "scan %d: %,d records in %.2f s wall (%,d records/s), %.2f s CPU of the "
                  + "scanning thread (%,d records per CPU-second); summary fill %.3f",
              number,
              pass.records(),
              s,
              Math.round(pass.records() / s),
              cpu,
              rate,
              summary.fillRatio()));
      return rate;
    } finally {
      for (BlockedBloomFilter f : byFile) {
        f.close();
      }
    }
  }

  /** The scan saw each block file's generated rows, no more, no fewer. */
  private static void requireEveryRow(TxFilterPass pass, long[] perFile) {
    for (int f = 0; f < perFile.length; f++) {
      if (pass.count(f) != perFile[f]) {
        throw new IllegalStateException(
            "blk" + f + ": scanned " + pass.count(f) + " rows, generated " + perFile[f]);
      }
    }
  }
}
