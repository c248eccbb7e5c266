package io.bbfindex.benchmarks.scale;

import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.benchmarks.harness.ThreadClock;
import io.bbfindex.benchmarks.synthetic.SyntheticKeys;
import io.bbfindex.ingest.ownindex.OwnIndexBuilder;
import io.bbfindex.ingest.ownindex.OwnIndexCorruptException;
import io.bbfindex.ingest.ownindex.OwnIndexFile;
import io.bbfindex.ingest.ownindex.PositionPacking;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * {@code bench scale}'s own txid index phase (issue 26): the index of {@code --keys} synthetic
 * txids at mainnet positions, built by the product's builder ({@link OwnIndexBuilder}: the spill of
 * 24 bytes a txid to bucket files, then shard by shard), its bytes a txid, build time and keys per
 * CPU second, the cost of opening it (header and shard table) and of checking every shard, and
 * positive lookups ({@link OwnIndexFile#value}, the index probe; a served lookup then reads and
 * hashes the transaction in its blk file, which synthetic txids do not have) with the file in
 * memory and with its pages dropped from the page cache.
 *
 * <p>Positions: the txids are split over the run's block files in order, and inside a file spread
 * up to 2^27 bytes (128 MiB, Core's largest blk file), so values are 13 + 27 = 40 bits at 5,600
 * files, as on mainnet.
 */
final class OwnIndexScale {

  /** Bytes a txid the spill takes on disk during the build. */
  static final int SPILL_BYTES_PER_TXID = 24;

  /** Largest offset inside a block file: 128 MiB, Core's blk file size cap. */
  static final long MAX_FILE_OFFSET = (1L << 27) - 1;

  /** What the phase measured. */
  record Result(
      long keys,
      long bytes,
      double buildSeconds,
      double buildCpuSeconds,
      double openMillis,
      double verifySeconds,
      double warmNs,
      double coldMedianUs,
      double coldP99Us,
      String coldNote,
      boolean allFound) {

    double bytesPerTxid() {
      return (double) bytes / keys;
    }
  }

  private OwnIndexScale() {}

  /** The byte offset of txid {@code i} inside its file, given its file's first txid. */
  static long offsetOf(long i, long fileStart, long stride) {
    return 8 + (i - fileStart) * stride;
  }

  /**
   * Bytes between txids in a file, so that a file's txids spread up to {@link #MAX_FILE_OFFSET}.
   */
  static long stride(long keys, int files) {
    long perFile = Math.max(1, (keys + files - 1) / files);
    return Math.max(1, (MAX_FILE_OFFSET - 8) / perFile);
  }

  /**
   * Builds and measures; the index file is deleted at the end (the spill by the builder).
   *
   * @param warmSample txids timed in memory (random inserted ones)
   * @param coldSample txids timed each alone after the file's pages are dropped
   */
  static Result run(ScaleBench.Config c, BenchReport r, Path tmp, int warmSample, int coldSample)
      throws IOException, InterruptedException {
    Synthetic g = new Synthetic(c.keys(), c.files(), new SyntheticKeys(c.seed()));
    checkDisk(g.keys(), tmp);
    Path file = tmp.resolve("own-txindex.dat");
    try {
      long cpu0 = processCpuNanos();
      long t0 = System.nanoTime();
      OwnIndexBuilder.Report built = build(g, file, tmp.resolve("own-spill"));
      double buildSeconds = (System.nanoTime() - t0) / 1e9;
      double buildCpu = (processCpuNanos() - cpu0) / 1e9;
      r.line(
          "own txid index: %,d txids built in %.1f s (%,d shards, %,d bytes, %.3f bytes a txid;"
              + " process CPU %.1f s)",
          built.keys(),
          buildSeconds,
          built.shards(),
          built.bytes(),
          built.bytesPerTxid(),
          buildCpu);

      OwnIndexFile.open(file).close(); // untimed: loads the classes that open uses
      long o0 = System.nanoTime();
      try (OwnIndexFile index = OwnIndexFile.open(file)) {
        double openMillis = (System.nanoTime() - o0) / 1e6;
        long v0 = System.nanoTime();
        index.verifyAll();
        double verifySeconds = (System.nanoTime() - v0) / 1e9;
        SplittableRandom rnd = new SplittableRandom(c.seed() ^ 0x26);
        long[] cold = sample(rnd, g.keys(), coldSample);
        long[] warm = sample(rnd, g.keys(), warmSample);
        // cold first: the pages the warm rounds touch would stay mapped, and mapped pages are not
        // dropped
        Cold coldRun = coldLookups(g, index, file, cold);
        Warm warmRun = warmLookups(g, index, warm, c.rounds());
        double[] coldUs = coldRun.sortedUs();
        Result res =
            new Result(
                built.keys(),
                built.bytes(),
                buildSeconds,
                buildCpu,
                openMillis,
                verifySeconds,
                warmRun.medianNs(),
                coldUs.length == 0 ? Double.NaN : coldUs[coldUs.length / 2],
                coldUs.length == 0 ? Double.NaN : coldUs[(int) (coldUs.length * 0.99)],
                coldRun.note(),
                coldRun.allFound() && warmRun.allFound());
        print(r, res, warm.length, cold.length, c.rounds());
        return res;
      }
    } finally {
      Files.deleteIfExists(file);
    }
  }

  /** The synthetic chain's txids and where they lie: {@code keys} over {@code files} files. */
  private record Synthetic(long keys, int files, SyntheticKeys txids) {
    long stride() {
      return OwnIndexScale.stride(keys, files);
    }

    long expected(long i, PositionPacking p) {
      return OwnIndexScale.expected(i, keys, files, stride(), p);
    }
  }

  /** Cold lookups, sorted microseconds; what the page cache held; whether every value was exact. */
  private record Cold(double[] sortedUs, String note, boolean allFound) {}

  /** The median CPU ns of a lookup in memory; whether every value was exact. */
  private record Warm(double medianNs, boolean allFound) {}

  private static void checkDisk(long keys, Path tmp) throws IOException {
    long need = keys * (SPILL_BYTES_PER_TXID + 6);
    long free = Files.getFileStore(Files.createDirectories(tmp)).getUsableSpace();
    if (free < need + (1L << 30)) {
      throw new IOException(
          String.format(
              Locale.ROOT,
              "the own index of %,d txids needs %,d bytes of disk under %s (spill and index),"
                  + " %,d are free",
              keys,
              need,
              tmp,
              free));
    }
  }

  /** The product's builder over the synthetic txids, file by file. */
  private static OwnIndexBuilder.Report build(Synthetic g, Path file, Path spill)
      throws IOException {
    long keys = g.keys();
    int files = g.files();
    long stride = g.stride();
    return OwnIndexBuilder.build(
        keys,
        sink -> {
          byte[] k = new byte[SyntheticKeys.KEY_BYTES];
          for (int f = 0; f < files; f++) {
            long start = SyntheticKeys.rangeStart(keys, files, f);
            long end = SyntheticKeys.rangeStart(keys, files, f + 1);
            for (long i = start; i < end; i++) {
              g.txids().key(i, k, 0);
              sink.accept(k, 0, f, offsetOf(i, start, stride));
            }
          }
        },
        new byte[32],
        new byte[32],
        0,
        file,
        spill);
  }

  /**
   * Each lookup after the file is dropped from the page cache. WHY each: the pages of a file mapped
   * for random reads are read around the faulting page, up to the device's read-ahead, so one cold
   * lookup brings whole megabytes in, and the next ones would find them.
   */
  private static Cold coldLookups(Synthetic g, OwnIndexFile index, Path file, long[] cold)
      throws IOException, InterruptedException {
    PositionPacking packing = index.header().packing();
    boolean allFound = true;
    String before = resident(file);
    String dropped = dropFromPageCache(file);
    String after = resident(file);
    double[] coldUs = new double[cold.length];
    byte[] k = new byte[SyntheticKeys.KEY_BYTES];
    for (int j = 0; j < cold.length; j++) {
      g.txids().key(cold[j], k, 0);
      if (j > 0) {
        dropFromPageCache(file);
      }
      long s = System.nanoTime();
      long v = index.value(k, 0);
      coldUs[j] = (System.nanoTime() - s) / 1e3;
      allFound &= v == g.expected(cold[j], packing);
    }
    String note =
        String.format(
            Locale.ROOT,
            "%s before each lookup; resident before %s, after the drop %s, after the last"
                + " cold lookup %s (read-ahead of the disk: %s)",
            dropped,
            before,
            after,
            resident(file),
            readAhead(file));
    Arrays.sort(coldUs);
    return new Cold(coldUs, note, allFound);
  }

  /** Rounds of lookups of the {@code warm} txids in memory, after checking each value once. */
  private static Warm warmLookups(Synthetic g, OwnIndexFile index, long[] warm, int rounds)
      throws OwnIndexCorruptException {
    PositionPacking packing = index.header().packing();
    boolean allFound = true;
    byte[] warmKeys = new byte[warm.length * SyntheticKeys.KEY_BYTES];
    for (int j = 0; j < warm.length; j++) {
      g.txids().key(warm[j], warmKeys, j * SyntheticKeys.KEY_BYTES);
      allFound &=
          index.value(warmKeys, j * SyntheticKeys.KEY_BYTES) == g.expected(warm[j], packing);
    }
    double[] ns = new double[rounds];
    long sink = 0;
    for (int round = -ScaleBench.WARM_UP_ROUNDS; round < rounds; round++) {
      ThreadClock s = ThreadClock.now();
      for (int j = 0; j < warm.length; j++) {
        sink += index.value(warmKeys, j * SyntheticKeys.KEY_BYTES);
      }
      ThreadClock took = ThreadClock.now().since(s);
      if (round >= 0) {
        ns[round] =
            (took.cpuNanos() > 0 ? took.cpuNanos() : took.wallNanos()) / (double) warm.length;
      }
    }
    if (sink == 42) {
      System.out.print(""); // keeps the lookups live
    }
    return new Warm(BenchReport.median(ns), allFound);
  }

  /** The value the index must return for inserted txid {@code i}. */
  static long expected(long i, long keys, int files, long stride, PositionPacking p) {
    int f = ScaleBench.fileOf(i, keys, files);
    long offset = offsetOf(i, SyntheticKeys.rangeStart(keys, files, f), stride);
    return (long) f << p.offsetBits() | offset;
  }

  private static long[] sample(SplittableRandom rnd, long keys, int count) {
    long[] out = new long[(int) Math.min(count, keys)];
    for (int j = 0; j < out.length; j++) {
      out[j] = rnd.nextLong(keys);
    }
    return out;
  }

  private static long processCpuNanos() {
    return ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime()
        : -1;
  }

  /**
   * Drops the file's pages from the page cache: {@code dd iflag=nocache count=0} (GNU coreutils:
   * posix_fadvise(POSIX_FADV_DONTNEED) over the whole file), for this file only; dropping the whole
   * page cache ({@code /proc/sys/vm/drop_caches}) would need root and disturb every other process.
   * Pages still mapped by a process are not dropped: the shard check unloads what it read from the
   * mapping ({@link OwnIndexFile#verifyAll}).
   */
  static String dropFromPageCache(Path file) throws IOException, InterruptedException {
    String out = run(List.of("dd", "if=" + file, "iflag=nocache", "count=0", "status=none"));
    return "page cache dropped for the file by dd iflag=nocache count=0 (posix_fadvise DONTNEED)"
        + (out.isBlank() ? "" : " [" + out.strip() + "]");
  }

  /** The read-ahead of the block device under {@code file} (sysfs), or why not known. */
  static String readAhead(Path file) throws InterruptedException {
    try {
      Process p = new ProcessBuilder("df", "--output=source", file.toString()).start();
      String[] lines =
          new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\n");
      p.waitFor(10, TimeUnit.SECONDS);
      String dev = Path.of(lines[lines.length - 1].strip()).getFileName().toString();
      Path ra = Path.of("/sys/block", dev.replaceAll("[0-9]+$", ""), "queue", "read_ahead_kb");
      return Files.readString(ra).strip() + " KiB (" + ra + ")";
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  /** The file's bytes in the page cache ({@code fincore}), or why not known. */
  static String resident(Path file) throws InterruptedException {
    try {
      String out =
          run(List.of("fincore", "--bytes", "--noheadings", "--output", "RES", file.toString()));
      long bytes = Long.parseLong(out.strip());
      return String.format(Locale.ROOT, "%,.1f MiB", bytes / 1048576.0);
    } catch (IOException | NumberFormatException e) {
      return "unknown (fincore: " + e.getMessage() + ")";
    }
  }

  private static String run(List<String> cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", cmd) + " did not end");
    }
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed: " + out.strip());
    }
    return out;
  }

  private static void print(BenchReport r, Result res, int warm, int cold, int rounds) {
    r.table(
        "own txid index (issue 26) over " + BenchReport.count(res.keys()) + " synthetic txids",
        List.of("figure", "value"),
        List.of(
            List.of("bytes on disk", String.format(Locale.ROOT, "%,d", res.bytes())),
            List.of("bytes a txid", String.format(Locale.ROOT, "%.3f", res.bytesPerTxid())),
            List.of(
                "build s (one thread: spill, then shard by shard)",
                String.format(Locale.ROOT, "%.1f", res.buildSeconds())),
            List.of(
                "build keys/s (wall)",
                String.format(Locale.ROOT, "%,.0f", res.keys() / res.buildSeconds())),
            List.of(
                "build keys per CPU second (process CPU: builder, key generation, GC)",
                String.format(Locale.ROOT, "%,.0f", res.keys() / res.buildCpuSeconds())),
            List.of(
                "OwnIndexFile.open ms (header and shard table)",
                String.format(Locale.ROOT, "%.2f", res.openMillis())),
            List.of(
                "verifyAll s (every shard's CRC32C: the background pass)",
                String.format(Locale.ROOT, "%.2f", res.verifySeconds())),
            List.of(
                "positive lookup CPU ns, in memory (median of " + rounds + " rounds)",
                String.format(Locale.ROOT, "%.1f", res.warmNs())),
            List.of(
                "positive lookup us, cold page cache (median / p99 of " + cold + ")",
                String.format(Locale.ROOT, "%.1f / %.1f", res.coldMedianUs(), res.coldP99Us())),
            List.of("every sampled txid's value exact", Boolean.toString(res.allFound()))));
    r.line(
        "  lookups: OwnIndexFile.value (three 8-byte reads of the mapping; a served lookup then"
            + " reads and hashes the tx in its blk file); in memory: %,d random inserted txids"
            + " after %d untimed passes; cold: %s",
        warm, ScaleBench.WARM_UP_ROUNDS, res.coldNote());
  }

  /** The summary lines. */
  static void summarize(BenchReport r, Result res) {
    r.summary("own_index_keys", res.keys());
    r.summary("own_index_bytes_per_txid", res.bytesPerTxid());
    r.summary("own_index_build_seconds", res.buildSeconds());
    r.summary("own_index_build_keys_per_s", res.keys() / res.buildSeconds());
    r.summary("own_index_build_keys_per_cpu_s", res.keys() / res.buildCpuSeconds());
    r.summary("own_index_open_ms", res.openMillis());
    r.summary("own_index_verify_seconds", res.verifySeconds());
    r.summary("own_index_pos_lookup_ns", res.warmNs());
    r.summary("own_index_pos_lookup_cold_us", res.coldMedianUs());
    r.line("target: own_index_bytes_per_txid <= 6: %s", res.bytesPerTxid() <= 6 ? "met" : "MISSED");
  }
}
