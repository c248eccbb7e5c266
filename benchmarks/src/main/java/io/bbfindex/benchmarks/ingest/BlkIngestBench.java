package io.bbfindex.benchmarks.ingest;

import io.bbfindex.benchmarks.harness.BenchReport;
import io.bbfindex.benchmarks.synthetic.SyntheticChain;
import io.bbfindex.filters.BbfSizing;
import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.ingest.blockfile.BlockFileReader;
import io.bbfindex.ingest.filterbuild.ProgressListener;
import io.bbfindex.ingest.filterbuild.TxFilterPass;
import io.bbfindex.ingest.ownindex.OwnIndexBuilder;
import io.bbfindex.ingest.records.TxRecordConsumer;
import io.bbfindex.ingest.txindex.BlockDataTxSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Ingest from block data, as a hashed (Core >= 32) or mixed txindex needs it: MB/s of blk files
 * turned into filters by the product's {@link BlockDataTxSource} (read, XOR of {@code xor.dat}
 * removed, every txid computed, inserted by {@link TxFilterPass} into its file's BBF and the
 * summary), on {@code threads} hashing threads, next to the machine's own SHA-256 throughput over
 * the same bytes (JDK {@link MessageDigest} SHA-256 over the blk files' bytes, in memory, on the
 * same number of threads) measured in the same run. Rounds alternate between the two so a shared
 * machine's load hits both alike; the ratio is the median of the per-round ratios. Beside the
 * wall-clock rates, MB per CPU-second of the whole process (GC and JIT included) for both, which
 * the other processes of a shared machine do not skew.
 *
 * <p>What the ratio is: blk bytes turned into filters per second over SHA-256 of the same bytes per
 * second, not over a limit. Its ceiling from SHA-256 block counts alone is about 1.3 on
 * mainnet-shaped data (printed per run): witness bytes are read but not hashed (a txid leaves them
 * out), which lifts it, while the second hash over 32 bytes and the padding of each transaction to
 * whole 64-byte blocks lower it.
 *
 * <p>Txid values, not only counts: the generator writes each header's merkle root from the txids it
 * computed itself, and {@link BlockDataTxSource} folds the txids it computes to that root for every
 * block before handing any on (a wrong txid fails the pass), so every pass checks every value; the
 * per-file counts are checked besides.
 */
public final class BlkIngestBench {

  /** What was measured (MB = 10^6 bytes; medians over rounds). */
  public record Result(
      long blkBytes,
      long transactions,
      int files,
      double ingestMbPerSecond,
      double sha256MbPerSecond,
      double ratio,
      double ingestMbPerCpuSecond,
      double sha256MbPerCpuSecond,
      double withOwnIndexMbPerSecond,
      double ownIndexCost,
      double ownIndexCpuCost) {

    /**
     * The ratio of MB per CPU-second of the whole process: what a shared machine's load does not
     * skew.
     */
    public double cpuRatio() {
      return ingestMbPerCpuSecond / sha256MbPerCpuSecond;
    }
  }

  private BlkIngestBench() {}

  /**
   * Generates a chain of about {@code blkBytes} in blk files of {@code fileBytes} under {@code dir}
   * (which must be new or empty), then measures {@code rounds} alternating rounds after one warm-up
   * round of each.
   *
   * @throws IOException if generating or reading the blk files fails
   */
  public static Result measure(
      Path dir,
      long blkBytes,
      long fileBytes,
      int threads,
      int rounds,
      long seed,
      Consumer<String> out)
      throws IOException {
    SyntheticChain.Result chain = generate(dir, blkBytes, fileBytes, seed, out);
    int files = chain.txPerFile().length;
    byte[][] raw = new byte[files][];
    for (int f = 0; f < files; f++) {
      raw[f] = Files.readAllBytes(blockFile(chain, f));
    }
    Result res = timedRounds(chain, raw, threads, rounds, out);
    printPhases(chain, raw, res, out);
    out.accept(
        String.format(
            Locale.ROOT,
            "blk ingest: median %.1f MB/s of blk data into filters, SHA-256 %.1f MB/s over the same"
                + " bytes, ratio %.3f (target >= 0.5; every txid's value checked against its"
                + " block's merkle root, counts per file); per CPU-second of the process %.1f vs"
                + " %.1f MB, ratio %.3f; load average %.1f on %d cores",
            res.ingestMbPerSecond(),
            res.sha256MbPerSecond(),
            res.ratio(),
            res.ingestMbPerCpuSecond(),
            res.sha256MbPerCpuSecond(),
            res.cpuRatio(),
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
            Runtime.getRuntime().availableProcessors()));
    return res;
  }

  /** The synthetic chain of about {@code blkBytes} in blk files of {@code fileBytes}. */
  private static SyntheticChain.Result generate(
      Path dir, long blkBytes, long fileBytes, long seed, Consumer<String> out) throws IOException {
    long t0 = System.nanoTime();
    SyntheticChain.Result chain =
        SyntheticChain.generate(
            dir,
            new SyntheticChain.Params(Long.MAX_VALUE, blkBytes, 3_000, fileBytes, seed, false),
            null);
    int files = chain.txPerFile().length;
    out.accept(
        String.format(
            Locale.ROOT,
            "generated %,d transactions in %,d blocks, %,d blk files of up to %d MiB (%.1f MB, XOR"
                + " key in blocks/xor.dat, mainnet-shaped transactions: %.0f bytes mean) in %.1f s",
            chain.transactions(),
            chain.blocks().size(),
            files,
            fileBytes >> 20,
            chain.blkBytes() / 1e6,
            (double) chain.blkBytes() / chain.transactions(),
            (System.nanoTime() - t0) / 1e9));
    return chain;
  }

  /**
   * One warm-up round, then {@code rounds} rounds of blk ingest against SHA-256 over the same bytes
   * ({@code raw}); their medians.
   */
  private static Result timedRounds(
      SyntheticChain.Result chain, byte[][] raw, int threads, int rounds, Consumer<String> out)
      throws IOException {
    MessageDigest[] digests = new MessageDigest[threads];
    for (int i = 0; i < threads; i++) {
      digests[i] = sha256();
    }
    double[] ingest = new double[rounds];
    double[] sha = new double[rounds];
    double[] ratio = new double[rounds];
    double[] ingestCpu = new double[rounds];
    double[] shaCpu = new double[rounds];
    double[] withIndex = new double[rounds];
    double[] indexCost = new double[rounds];
    double[] indexCpuCost = new double[rounds];
    try (BlockFileReader reader =
        new BlockFileReader(chain.blocksDir(), chain.xor(), SyntheticChain.MAINNET_MAGIC)) {
      // one source for every round, as one build holds one: its file buffers are reused from round
      // to round
      // as they are from file to file of mainnet's thousands
      BlockDataTxSource source =
          new BlockDataTxSource(chain.blocks(), reader, chain.xor(), threads);
      for (int r = -1; r < rounds; r++) { // round -1 warms up the JIT and the page cache
        long c0 = processCpuNanos();
        double in = chain.blkBytes() / 1e6 / ingestOnce(chain, source);
        long c1 = processCpuNanos();
        double sh = chain.blkBytes() / 1e6 / sha256Once(raw, digests);
        long c2 = processCpuNanos();
        double inOwn = chain.blkBytes() / 1e6 / ingestWithOwnIndexOnce(chain, source);
        long c3 = processCpuNanos();
        if (r >= 0) {
          ingest[r] = in;
          sha[r] = sh;
          ratio[r] = in / sh;
          ingestCpu[r] = chain.blkBytes() * 1e3 / Math.max(1, c1 - c0);
          shaCpu[r] = chain.blkBytes() * 1e3 / Math.max(1, c2 - c1);
          withIndex[r] = inOwn;
          indexCost[r] = in / inOwn;
          indexCpuCost[r] = (c3 - c2) / (double) Math.max(1, c1 - c0);
          printRound(out, r, threads, in, sh, inOwn, ingestCpu[r], shaCpu[r], indexCpuCost[r]);
        }
      }
    }
    return new Result(
        chain.blkBytes(),
        chain.transactions(),
        raw.length,
        BenchReport.median(ingest),
        BenchReport.median(sha),
        BenchReport.median(ratio),
        BenchReport.median(ingestCpu),
        BenchReport.median(shaCpu),
        BenchReport.median(withIndex),
        BenchReport.median(indexCost),
        BenchReport.median(indexCpuCost));
  }

  /** One round's rates: the filter pass with the own txid index kept, then against SHA-256. */
  private static void printRound(
      Consumer<String> out,
      int r,
      int threads,
      double in,
      double sh,
      double inOwn,
      double ingestCpu,
      double shaCpu,
      double indexCpuCost) {
    out.accept(
        String.format(
            Locale.ROOT,
            "round %d, with the own txid index kept: %.1f MB/s, %.2fx the time of the"
                + " filter pass alone, %.2fx its process CPU",
            r + 1,
            inOwn,
            in / inOwn,
            indexCpuCost));
    out.accept(
        String.format(
            Locale.ROOT,
            "round %d: blk ingest %.1f MB/s, SHA-256 %.1f MB/s on %d threads: "
                + "ratio %.3f (per CPU-second of the process: %.1f vs %.1f MB, ratio %.3f)",
            r + 1,
            in,
            sh,
            threads,
            in / sh,
            ingestCpu,
            shaCpu,
            ingestCpu / shaCpu));
  }

  /** The one-thread phases of a transaction's ingest ({@link BlkIngestPhases}), printed. */
  private static void printPhases(
      SyntheticChain.Result chain, byte[][] raw, Result res, Consumer<String> out)
      throws IOException {
    BlkIngestPhases.Result ph =
        BlkIngestPhases.measure(
            chain.blocksDir(),
            raw,
            chain.xor(),
            chain.blocks(),
            chain.txPerFile(),
            chain.transactions(),
            3);
    out.accept(
        String.format(
            Locale.ROOT,
            "the data: %.0f blk bytes a transaction (%.2f SHA-256 blocks of the limit's work), %.0f"
                + " of them hashed for its txid: %.2f SHA-256 blocks with padding and the second"
                + " hash; ceiling of the ratio from block counts alone %.3f",
            ph.bytesPerTx(),
            ph.bulkBlocksPerTx(),
            ph.hashedBytesPerTx(),
            ph.txidBlocksPerTx(),
            ph.blockCountCeiling()));
    double ingestCpuNs = ph.bytesPerTx() * 1e3 / res.ingestMbPerCpuSecond();
    out.accept(
        String.format(
            Locale.ROOT,
            "phases on one thread, CPU ns a transaction (best of 3): read and un-XOR %.1f, walk"
                + " + SHA-256d %.1f (%.1f ns a SHA-256 block in bulk: %.1f of it in blocks),"
                + " insert into 2 filters %.1f; SHA-256 over the same bytes %.1f: one-thread ratio"
                + " %.3f. The 2-thread rounds cost %.1f CPU ns a transaction (process): %.1f for"
                + " the hand-off, GC, JIT and the rest",
            ph.readNs(),
            ph.hashNs(),
            ph.sha256Ns() / ph.bulkBlocksPerTx(),
            ph.txidBlocksPerTx() * ph.sha256Ns() / ph.bulkBlocksPerTx(),
            ph.insertNs(),
            ph.sha256Ns(),
            ph.oneThreadRatio(),
            ingestCpuNs,
            ingestCpuNs - ph.readNs() - ph.hashNs() - ph.insertNs()));
  }

  /** One build pass over every blk file with fresh filters; wall seconds. */
  private static double ingestOnce(SyntheticChain.Result chain, BlockDataTxSource source) {
    long[] perFile = chain.txPerFile();
    BlockedBloomFilter[] byFile = fileFilters(perFile);
    try (BlockedBloomFilter summary = summaryFilter(chain.transactions())) {
      TxFilterPass pass =
          new TxFilterPass(
              byFile, summary, null, ProgressListener.NONE, "bench", chain.transactions());
      long t0 = System.nanoTime();
      source.forEachTx(0, 256, pass);
      double s = (System.nanoTime() - t0) / 1e9;
      for (int f = 0; f < perFile.length; f++) {
        if (pass.count(f) != perFile[f]) {
          throw new IllegalStateException(
              "blk" + f + ": " + pass.count(f) + " txids, generated " + perFile[f]);
        }
      }
      return s;
    } finally {
      for (BlockedBloomFilter f : byFile) {
        f.close();
      }
    }
  }

  /**
   * The build pass with the own txid index kept (issue 26): every transaction goes to the filters
   * and to the own index's builder ({@link OwnIndexBuilder}: its spill of 24 bytes a txid, then its
   * shards and the file), in one pass over the blk files; wall seconds to the index file written,
   * which is then deleted.
   */
  private static double ingestWithOwnIndexOnce(
      SyntheticChain.Result chain, BlockDataTxSource source) throws IOException {
    long[] perFile = chain.txPerFile();
    BlockedBloomFilter[] byFile = fileFilters(perFile);
    Path work = chain.blocksDir().resolveSibling("own-index-pass");
    Path file = work.resolve("own-txindex.dat");
    try (BlockedBloomFilter summary = summaryFilter(chain.transactions())) {
      TxFilterPass pass =
          new TxFilterPass(
              byFile, summary, null, ProgressListener.NONE, "bench", chain.transactions());
      long t0 = System.nanoTime();
      OwnIndexBuilder.Report built =
          OwnIndexBuilder.build(
              chain.transactions(),
              sink ->
                  forEachUnwrapped(
                      source,
                      new TxRecordConsumer() {
                        @Override
                        public void accept(byte[] txid, int f, long dataPos, long txOffset) {
                          accept(txid, 0, f, dataPos, txOffset);
                        }

                        @Override
                        public void accept(
                            byte[] txids, int offset, int f, long dataPos, long txOffset) {
                          pass.accept(txids, offset, f, dataPos, txOffset);
                          try {
                            sink.accept(
                                txids,
                                offset,
                                f,
                                dataPos + BlockFileReader.HEADER_BYTES + txOffset);
                          } catch (IOException e) {
                            throw new UncheckedIOException(e);
                          }
                        }
                      }),
              new byte[32],
              new byte[32],
              0,
              file,
              work.resolve("spill"));
      double s = (System.nanoTime() - t0) / 1e9;
      if (built.keys() != chain.transactions()) {
        throw new IllegalStateException(
            "own index of " + built.keys() + " txids, generated " + chain.transactions());
      }
      return s;
    } finally {
      for (BlockedBloomFilter f : byFile) {
        f.close();
      }
      Files.deleteIfExists(file);
    }
  }

  /** {@code source.forEachTx} over every file; a consumer's wrapped IOException unwrapped. */
  private static void forEachUnwrapped(BlockDataTxSource source, TxRecordConsumer consumer)
      throws IOException {
    try {
      source.forEachTx(0, 256, consumer);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  /** A filter per blk file at 1 %, as a build sizes them. */
  static BlockedBloomFilter[] fileFilters(long[] txPerFile) {
    BlockedBloomFilter[] byFile = new BlockedBloomFilter[txPerFile.length];
    for (int f = 0; f < txPerFile.length; f++) {
      byFile[f] =
          BlockedBloomFilter.create(BbfSizing.forTarget(Math.max(1, txPerFile[f]), 0.01), 0);
    }
    return byFile;
  }

  /** The summary filter at 1 % with a build's 25 % headroom. */
  static BlockedBloomFilter summaryFilter(long transactions) {
    return BlockedBloomFilter.create(
        BbfSizing.forTarget((long) Math.ceil(transactions * 1.25), 0.01), 0);
  }

  /**
   * SHA-256 over every byte of {@code files} by {@code digests.length} threads taking 4 MiB chunks
   * in turn (so the threads finish together); wall seconds.
   */
  static double sha256Once(byte[][] files, MessageDigest[] digests) {
    int chunk = 4 << 20;
    List<int[]> chunks = new ArrayList<>();
    for (int f = 0; f < files.length; f++) {
      for (int off = 0; off < files[f].length; off += chunk) {
        chunks.add(new int[] {f, off, Math.min(chunk, files[f].length - off)});
      }
    }
    AtomicInteger next = new AtomicInteger();
    byte[][] sinks = new byte[digests.length][];
    Thread[] workers = new Thread[digests.length];
    long t0 = System.nanoTime();
    for (int t = 0; t < workers.length; t++) {
      int id = t;
      workers[t] =
          Thread.ofPlatform()
              .name("sha256-" + t)
              .start(
                  () -> {
                    MessageDigest md = digests[id];
                    for (int i; (i = next.getAndIncrement()) < chunks.size(); ) {
                      int[] c = chunks.get(i);
                      md.update(files[c[0]], c[1], c[2]);
                    }
                    sinks[id] = md.digest();
                  });
    }
    for (Thread w : workers) {
      try {
        w.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
    double s = (System.nanoTime() - t0) / 1e9;
    for (byte[] d : sinks) {
      if (d == null || d.length != 32) {
        throw new IllegalStateException("a SHA-256 worker failed");
      }
    }
    return s;
  }

  /** CPU time of every thread of this JVM (the consumer, the workers, GC and JIT alike). */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static Path blockFile(SyntheticChain.Result chain, int f) {
    return chain.blocksDir().resolve(String.format(Locale.ROOT, "blk%05d.dat", f));
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("every JDK has SHA-256", e);
    }
  }
}
