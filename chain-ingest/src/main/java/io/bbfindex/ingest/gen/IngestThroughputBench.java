package io.bbfindex.ingest.gen;

import io.bbfindex.filters.BbfSizing;
import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.ingest.TxIndexOnly;
import io.bbfindex.ingest.build.ProgressListener;
import io.bbfindex.ingest.build.TxFilterPass;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * Benchmark (not a test): how many txindex {@code 't'} records per second one thread decodes and
 * inserts into the filters, on a synthetic txindex of {@code --records} rows (10 million by
 * default) written by {@link SyntheticTxIndex} in Core's format. Each measured scan is the
 * builder's real hot path: LevelDB iteration over a private snapshot, Core VARINT decoding
 * ({@code TxIndexScan}), then {@link TxFilterPass} inserting every txid into its block file's BBF
 * and into the summary BBF (both sized at 1 % as the builder sizes them).
 *
 * <pre>
 *   java --add-modules=jdk.incubator.vector --enable-native-access=ALL-UNNAMED -cp ... \
 *     io.bbfindex.ingest.gen.IngestThroughputBench [--dir target/bench-txindex] [--records 10000000]
 *     [--scans 3] [--seed 1] [--decoders N]
 * </pre>
 * The generated index is kept in {@code --dir} and reused by later runs with the same record count
 * and seed. Prints one human line per scan, then {@code summary: ingest_records_per_second N}
 * (the median one-thread scan). {@code --decoders N} adds one wall-clock scan split over N decoder
 * threads feeding one inserter (the builder's parallel path).
 */
public final class IngestThroughputBench {

  private IngestThroughputBench() {}

  public static void main(String[] args) throws IOException {
    Path dir = Path.of("target", "bench-txindex");
    long records = 10_000_000;
    int scans = 3;
    long seed = 1;
    int decoders = 0;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--dir" -> dir = Path.of(args[++i]);
        case "--records" -> records = Long.parseLong(args[++i]);
        case "--scans" -> scans = Integer.parseInt(args[++i]);
        case "--seed" -> seed = Long.parseLong(args[++i]);
        case "--decoders" -> decoders = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]
            + " (use --dir, --records, --scans, --seed, --decoders)");
      }
    }
    Path data = dir.resolve(records + "-" + seed);
    long[] perFile;
    if (Files.exists(data.resolve(SyntheticTxIndex.INFO_FILE))) {
      perFile = SyntheticTxIndex.readPerFile(data);
      System.out.printf(Locale.ROOT, "reusing the synthetic txindex in %s (%d blk files)%n", data, perFile.length);
    } else {
      long t0 = System.nanoTime();
      perFile = SyntheticTxIndex.generate(data, SyntheticTxIndex.Params.mainnetLike(records, seed), null).perFile();
      double s = (System.nanoTime() - t0) / 1e9;
      System.out.printf(Locale.ROOT, "generated %,d 't' records over %d blk files in %s in %.1f s (%,.0f records/s)%n",
          records, perFile.length, data, s, records / s);
    }
    long[] measured = new long[scans];
    try (TxIndexOnly idx = TxIndexOnly.open(data.resolve("indexes").resolve("txindex"), dir.resolve("work"))) {
      long decodeOnly = decodeOnly(idx);
      System.out.printf(Locale.ROOT, "decode only (warm-up): %,d records per CPU-second%n", decodeOnly);
      for (int s = 0; s < scans; s++) {
        measured[s] = scan(idx, perFile, records, s + 1, 0);
      }
      if (decoders > 0) {
        scan(idx, perFile, records, scans + 1, decoders);
      }
    }
    long[] sorted = measured.clone();
    Arrays.sort(sorted);
    long median = sorted[sorted.length / 2];
    System.out.printf(Locale.ROOT, "ingest: %,d 't' records decoded and inserted (per-file + summary BBF, 1 %%) "
        + "on one thread: median %,d records per CPU-second over %d scans (best %,d); load average %.1f on %d cores%n",
        records, median, scans, sorted[sorted.length - 1],
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), Runtime.getRuntime().availableProcessors());
    System.out.println("summary: ingest_records_per_second " + median);
  }

  /** A scan that only decodes (no filter), also warming up the JIT and the page cache. */
  private static long decodeOnly(TxIndexOnly idx) {
    long[] n = {0, 0};
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long cpu0 = threads.getCurrentThreadCpuTime();
    idx.forEachTx((txid, file, pos, off) -> {
      n[0]++;
      n[1] += txid[0] + file + pos + off; // keep the decoded fields alive
    });
    double s = (threads.getCurrentThreadCpuTime() - cpu0) / 1e9;
    if (n[1] == Long.MIN_VALUE) {
      System.out.println(n[1]);
    }
    return Math.round(n[0] / s);
  }

  /**
   * One measured scan with fresh filters; returns records per CPU-second of the scanning thread
   * (decoding and LevelDB's iteration both run on it, in Java and JNI). On a shared machine the
   * wall-clock rate measures the other processes too, so both are printed and the CPU-time rate is
   * the one-core figure.
   */
  private static long scan(TxIndexOnly idx, long[] perFile, long records, int number, int decoders) {
    BlockedBloomFilter[] byFile = new BlockedBloomFilter[perFile.length];
    for (int f = 0; f < perFile.length; f++) {
      byFile[f] = BlockedBloomFilter.create(BbfSizing.forTarget(Math.max(1, perFile[f]), 0.01), 0);
    }
    try (BlockedBloomFilter summary = BlockedBloomFilter.create(
        BbfSizing.forTarget((long) Math.ceil(records * 1.25), 0.01), 0)) {
      TxFilterPass pass = new TxFilterPass(byFile, summary, null, ProgressListener.NONE, "bench", records);
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
      for (int f = 0; f < perFile.length; f++) {
        if (pass.count(f) != perFile[f]) {
          throw new IllegalStateException("blk" + f + ": scanned " + pass.count(f) + " rows, generated " + perFile[f]);
        }
      }
      long rate = Math.round(pass.records() / cpu);
      if (decoders > 0) {
        System.out.printf(Locale.ROOT, "scan %d with %d decoder threads + 1 inserter: %,d records in %.2f s wall "
            + "(%,d records/s)%n", number, decoders, pass.records(), s, Math.round(pass.records() / s));
        return Math.round(pass.records() / s);
      }
      System.out.printf(Locale.ROOT, "scan %d: %,d records in %.2f s wall (%,d records/s), %.2f s CPU of the scanning "
          + "thread (%,d records per CPU-second); summary fill %.3f%n", number, pass.records(), s,
          Math.round(pass.records() / s), cpu, rate, summary.fillRatio());
      return rate;
    } finally {
      for (BlockedBloomFilter f : byFile) {
        f.close();
      }
    }
  }
}
