package io.bbfindex.benchmarks.synthetic;

import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.ingest.build.BuildOptions;
import io.bbfindex.ingest.build.FilterBuilder;
import io.bbfindex.ingest.build.ProgressListener;
import io.bbfindex.ingest.build.TxFilterPass;
import io.bbfindex.ingest.store.Manifest;
import io.bbfindex.ingest.store.Manifest.BlockHashEntry;
import io.bbfindex.ingest.store.Manifest.FileEntry;
import io.bbfindex.ingest.store.Manifest.SummaryEntry;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/**
 * A filter store over synthetic txids at any scale (mainnet: 1.4 billion txids in 5,600 block
 * files), for the scale benchmark. Key {@code i} of {@link Spec#keys()} belongs to block file
 * {@code f} when {@code i} is in {@link SyntheticKeys#rangeStart}{@code (keys, files, f) .. (f +
 * 1)}: the same key set split over any number of files.
 *
 * <p>The build is the builder's: one pass that hands every key to {@link TxFilterPass} (the ingest
 * hot path of {@link FilterBuilder}: one insert into the key's file filter, one into the summary),
 * one thread, filters sized and written by {@link StoreAssembly}. Keys come file by file, so only
 * one per-file filter is being filled at a time; finished ones are written on {@value #WRITERS}
 * writer threads (each write forces the file and its directory to disk, as the builder's does)
 * while the pass goes on. Memory is the summary plus the per-file filters waiting to be written.
 */
public final class SyntheticStore {

  /**
   * Writer threads: each FilterFile.write forces the file and its directory to disk (two fsyncs),
   * which dominates writing 5,600 small files; the threads mostly wait on the disk, so more of them
   * than cores overlap those waits.
   */
  private static final int WRITERS = 8;

  /** Per-file filters allowed to wait for their writer (bounds memory). */
  private static final int PENDING_WRITES = 32;

  /**
   * What to build.
   *
   * @param keys txids in the store
   * @param files block files they are split over
   * @param blocks block hashes in the block-hash filter (mainnet: about 950,000)
   * @param seed key seed ({@link SyntheticKeys}); block hashes use {@code ~seed}
   */
  public record Spec(long keys, int files, long blocks, long seed, BuildOptions opts) {
    public Spec {
      if (keys < 0) {
        throw new IllegalArgumentException("keys must be >= 0: " + keys);
      }
      if (files < 1) {
        throw new IllegalArgumentException("files must be >= 1: " + files);
      }
      if (blocks < 1) {
        throw new IllegalArgumentException("blocks must be >= 1: " + blocks);
      }
      Objects.requireNonNull(opts, "opts");
    }

    public SyntheticKeys txids() {
      return new SyntheticKeys(seed);
    }
  }

  /**
   * What was built.
   *
   * @param elapsed wall time from the first key to the manifest on disk
   * @param fileFilterBytes bytes of the per-file filter files
   * @param totalBytes bytes of every file of the store (filters, manifest)
   */
  public record Built(
      Path dir,
      Manifest manifest,
      Duration elapsed,
      long fileFilterBytes,
      long summaryBytes,
      long blockHashBytes,
      long totalBytes) {}

  private SyntheticStore() {}

  /**
   * Builds the store of {@code spec} in {@code dir} (created; must be empty).
   *
   * @param shareSummaryFrom null to build the summary; else a store over the same keys whose
   *     summary file is shared ({@link StoreAssembly#shareSummary}) instead of built again
   */
  public static Built build(Path dir, Spec spec, Path shareSummaryFrom, ProgressListener progress)
      throws IOException {
    Files.createDirectories(dir);
    long start = System.nanoTime();
    BuildOptions opts = spec.opts();
    SyntheticKeys txids = spec.txids();
    BlockedBloomFilter summary =
        shareSummaryFrom == null ? StoreAssembly.newSummary(spec.keys(), opts) : null;
    BlockedBloomFilter[] byFile = new BlockedBloomFilter[spec.files()];
    String phase =
        "insert "
            + spec.keys()
            + " synthetic txids into "
            + spec.files()
            + " file filters"
            + (summary == null ? "" : " + summary");
    TxFilterPass pass = new TxFilterPass(byFile, summary, null, progress, phase, spec.keys());
    ExecutorService writers = Executors.newFixedThreadPool(Math.max(WRITERS, opts.parallelism()));
    Semaphore pending = new Semaphore(PENDING_WRITES);
    List<Future<FileEntry>> entries = new ArrayList<>(spec.files());
    byte[] key = new byte[SyntheticKeys.KEY_BYTES];
    try {
      for (int f = 0; f < spec.files(); f++) {
        long lo = SyntheticKeys.rangeStart(spec.keys(), spec.files(), f);
        long hi = SyntheticKeys.rangeStart(spec.keys(), spec.files(), f + 1);
        BlockedBloomFilter filter = StoreAssembly.newFileFilter(hi - lo, opts);
        byFile[f] = filter;
        for (long i = lo; i < hi; i++) {
          txids.key(i, key, 0);
          pass.accept(key, f, 8, 0);
        }
        byFile[f] = null;
        int file = f;
        long keys = hi - lo;
        long blocksLo = SyntheticKeys.rangeStart(spec.blocks(), spec.files(), f);
        long blocksHi = SyntheticKeys.rangeStart(spec.blocks(), spec.files(), f + 1);
        pending.acquire();
        entries.add(
            writers.submit(
                () -> {
                  try (filter) {
                    return StoreAssembly.writeFileFilter(
                        dir,
                        file,
                        filter,
                        keys,
                        blocksHi - blocksLo,
                        Math.max(0, blocksHi - 1),
                        opts);
                  } finally {
                    pending.release();
                  }
                }));
      }
      pass.finish();
      List<FileEntry> files = new ArrayList<>(entries.size());
      for (Future<FileEntry> e : entries) {
        files.add(e.get());
      }
      SummaryEntry s;
      if (summary == null) {
        Manifest other = io.bbfindex.ingest.store.ManifestFile.read(shareSummaryFrom);
        if (other.summary().keys() != spec.keys()) {
          throw new IllegalArgumentException(
              shareSummaryFrom
                  + " holds a summary of "
                  + other.summary().keys()
                  + " keys, not "
                  + spec.keys());
        }
        s = StoreAssembly.shareSummary(dir, shareSummaryFrom, other.summary());
      } else {
        s = StoreAssembly.writeSummary(dir, summary, spec.keys(), spec.files(), opts);
      }
      BlockHashEntry b =
          StoreAssembly.writeBlockHashes(dir, new SyntheticKeys(~spec.seed()), spec.blocks(), opts);
      Manifest m =
          StoreAssembly.writeManifest(
              dir,
              "synthetic: "
                  + spec.keys()
                  + " txids in "
                  + spec.files()
                  + " block files, seed "
                  + spec.seed(),
              opts,
              pass.records(),
              spec.blocks(),
              s,
              b,
              files);
      Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
      long fileBytes = 0;
      for (FileEntry e : files) {
        fileBytes += Files.size(dir.resolve(e.name()));
      }
      return new Built(
          dir,
          m,
          elapsed,
          fileBytes,
          Files.size(dir.resolve(s.name())),
          Files.size(dir.resolve(b.name())),
          StoreAssembly.directoryBytes(dir));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("synthetic store build interrupted");
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof IOException io) {
        throw io;
      }
      if (c instanceof UncheckedIOException u) {
        throw u.getCause();
      }
      if (c instanceof RuntimeException r) {
        throw r;
      }
      throw new IOException(c);
    } finally {
      writers.shutdownNow();
      for (BlockedBloomFilter f : byFile) {
        if (f != null) {
          f.close();
        }
      }
      if (summary != null) {
        summary.close();
      }
    }
  }
}
