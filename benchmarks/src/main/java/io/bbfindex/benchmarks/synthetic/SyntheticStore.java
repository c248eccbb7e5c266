package io.bbfindex.benchmarks.synthetic;

import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.ingest.filterbuild.BuildOptions;
import io.bbfindex.ingest.filterbuild.FilterBuilder;
import io.bbfindex.ingest.filterbuild.ProgressListener;
import io.bbfindex.ingest.filterbuild.TxFilterPass;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import org.jspecify.annotations.Nullable;

/**
 * A filter store over synthetic txids at any scale (mainnet: 1.4 billion txids in 5,600 block
 * files), for the scale benchmark. Key {@code i} of {@link Spec#keys()} belongs to block file
 * {@code f} when {@code i} is in {@link SyntheticKeys#rangeStart}{@code (keys, files, f) .. (f +
 * 1)}: the same key set split over any number of files.
 *
 * <p>The build is the builder's: one pass that hands every key to {@link TxFilterPass} (the ingest
 * hot path of {@link FilterBuilder}: one insert into the key's file filter, one into the summary),
 * one thread, filters sized and written by {@link StoreAssembly}. Stores of the same keys over
 * other file counts can be built in the same pass (each with its own TxFilterPass), sharing a
 * summary built elsewhere: the key is then made once for all of them. Keys come file by file, so
 * only one per-file filter is being filled at a time; finished ones are written on {@value
 * #WRITERS} writer threads (each write forces the file and its directory to disk, as the builder's
 * does) while the pass goes on. Memory is the summary plus the per-file filters waiting to be
 * written.
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
  public static Built build(
      Path dir, Spec spec, @Nullable Path shareSummaryFrom, ProgressListener progress)
      throws IOException {
    return build(
            List.of(dir),
            List.of(spec),
            shareSummaryFrom == null ? null : CompletableFuture.completedFuture(shareSummaryFrom),
            progress)
        .get(0);
  }

  /**
   * Builds several stores over the same keys, split over different file counts, in one pass: each
   * key is made once and handed to every store's own {@link TxFilterPass} (one per store, as the
   * builder has one per scan), on this thread. The summary, the same filter for every split, is
   * built into the first store when {@code shareSummaryFrom} is null; else each store shares the
   * summary file of the store {@code shareSummaryFrom} names once the pass is done (awaited then,
   * so that store may still be building on another thread meanwhile). {@link Built#elapsed()} is
   * the whole pass's, for each store.
   *
   * @param specs same keys and seed, any file counts
   */
  public static List<Built> build(
      List<Path> dirs,
      List<Spec> specs,
      @Nullable Future<Path> shareSummaryFrom,
      ProgressListener progress)
      throws IOException {
    Spec first = sameKeys(dirs, specs);
    long start = System.nanoTime();
    ExecutorService writers =
        Executors.newFixedThreadPool(Math.max(WRITERS, first.opts().parallelism()));
    Semaphore pending = new Semaphore(PENDING_WRITES);
    BlockedBloomFilter summary =
        shareSummaryFrom == null ? StoreAssembly.newSummary(first.keys(), first.opts()) : null;
    List<Split> splits = new ArrayList<>();
    try {
      for (int s = 0; s < specs.size(); s++) {
        Files.createDirectories(dirs.get(s));
        splits.add(
            new Split(
                dirs.get(s),
                specs.get(s),
                s == 0 ? summary : null,
                s == 0 ? progress : ProgressListener.NONE,
                writers,
                pending));
      }
      fill(first, splits);
      List<Built> out = new ArrayList<>(splits.size());
      for (Split sp : splits) {
        sp.finish();
      }
      Path summaryStore = shareSummaryFrom == null ? null : shareSummaryFrom.get();
      for (Split sp : splits) {
        SummaryEntry s =
            summaryStore != null
                ? sp.shareSummary(summaryStore)
                : sp == splits.get(0) && summary != null // set whenever no summary is shared
                    ? StoreAssembly.writeSummary(
                        sp.dir, summary, first.keys(), sp.spec.files(), first.opts())
                    : sp.shareSummary(splits.get(0).dir);
        out.add(sp.commit(s, Duration.ofNanos(System.nanoTime() - start)));
      }
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("synthetic store build interrupted");
    } catch (ExecutionException e) {
      throw causeOf(e);
    } finally {
      writers.shutdownNow();
      splits.forEach(Split::close);
      if (summary != null) {
        summary.close();
      }
    }
  }

  /** The first spec, once every spec is known to hold the same keys and has its directory. */
  private static Spec sameKeys(List<Path> dirs, List<Spec> specs) {
    if (dirs.size() != specs.size() || specs.isEmpty()) {
      throw new IllegalArgumentException("one directory per spec, at least one");
    }
    Spec first = specs.get(0);
    for (Spec s : specs) {
      if (s.keys() != first.keys() || s.seed() != first.seed()) {
        throw new IllegalArgumentException("the stores of one pass hold the same keys");
      }
    }
    return first;
  }

  /**
   * The key loop: every key made once, offered to every split; a split moves to its next file when
   * the key index reaches that file's range.
   */
  private static void fill(Spec first, List<Split> splits) throws InterruptedException {
    SyntheticKeys txids = first.txids();
    byte[] key = new byte[SyntheticKeys.KEY_BYTES];
    for (long i = 0; i < first.keys(); i++) {
      txids.key(i, key, 0);
      for (Split sp : splits) {
        sp.accept(i, key);
      }
    }
  }

  /** A failed write's cause, as the I/O error it was (a runtime exception is rethrown). */
  private static IOException causeOf(ExecutionException e) {
    Throwable c = e.getCause();
    if (c instanceof IOException io) {
      return io;
    }
    if (c instanceof UncheckedIOException u && u.getCause() instanceof IOException io) {
      return io;
    }
    if (c instanceof RuntimeException r) {
      throw r;
    }
    return new IOException(c);
  }

  /**
   * One store of a pass: its {@link TxFilterPass}, the per-file filter being filled (keys come file
   * by file) and the writes of the finished ones.
   */
  private static final class Split implements AutoCloseable {
    private final Path dir;
    private final Spec spec;
    private final @Nullable BlockedBloomFilter[] byFile;
    private final TxFilterPass pass;
    private final ExecutorService writers;
    private final Semaphore pending;
    private final List<Future<FileEntry>> entries = new ArrayList<>();
    private int file = -1;
    private long fileEnd;

    Split(
        Path dir,
        Spec spec,
        @Nullable BlockedBloomFilter summary,
        ProgressListener progress,
        ExecutorService writers,
        Semaphore pending) {
      this.dir = dir;
      this.spec = spec;
      this.writers = writers;
      this.pending = pending;
      byFile = new BlockedBloomFilter[spec.files()];
      String phase =
          "insert "
              + spec.keys()
              + " synthetic txids into "
              + spec.files()
              + " file filters"
              + (summary == null ? "" : " + summary");
      pass = new TxFilterPass(byFile, summary, null, progress, phase, spec.keys());
    }

    /** Key {@code i}: into the filter of its file (and the summary, if this split builds it). */
    void accept(long i, byte[] key) throws InterruptedException {
      while (i >= fileEnd) {
        nextFile();
      }
      pass.accept(key, 0, file);
    }

    /** Hands the filled filter to a writer (if any) and starts the next file's. */
    private void nextFile() throws InterruptedException {
      if (file >= 0) {
        submitWrite(file);
      }
      file++;
      fileEnd = SyntheticKeys.rangeStart(spec.keys(), spec.files(), file + 1);
      byFile[file] =
          StoreAssembly.newFileFilter(
              fileEnd - SyntheticKeys.rangeStart(spec.keys(), spec.files(), file), spec.opts());
    }

    private void submitWrite(int f) throws InterruptedException {
      BlockedBloomFilter filter = byFile[f];
      if (filter == null) {
        throw new IllegalStateException("block file " + f + " was written already");
      }
      byFile[f] = null;
      long keys =
          SyntheticKeys.rangeStart(spec.keys(), spec.files(), f + 1)
              - SyntheticKeys.rangeStart(spec.keys(), spec.files(), f);
      long blocksLo = SyntheticKeys.rangeStart(spec.blocks(), spec.files(), f);
      long blocksHi = SyntheticKeys.rangeStart(spec.blocks(), spec.files(), f + 1);
      pending.acquire();
      entries.add(
          writers.submit(
              () -> {
                try (filter) {
                  return StoreAssembly.writeFileFilter(
                      dir,
                      f,
                      filter,
                      keys,
                      blocksHi - blocksLo,
                      Math.max(0, blocksHi - 1),
                      spec.opts());
                } finally {
                  pending.release();
                }
              }));
    }

    /** After the last key: the remaining files (also empty ones) are written. */
    void finish() throws InterruptedException {
      while (file < spec.files() - 1) {
        nextFile();
      }
      submitWrite(file);
      pass.finish();
    }

    /** Links the summary of {@code store} (same keys, checked) into this store. */
    SummaryEntry shareSummary(Path store) throws IOException {
      Manifest other = io.bbfindex.ingest.store.ManifestFile.read(store);
      if (other.summary().keys() != spec.keys()) {
        throw new IllegalArgumentException(
            store + " holds a summary of " + other.summary().keys() + " keys, not " + spec.keys());
      }
      return StoreAssembly.shareSummary(dir, store, other.summary());
    }

    /** Waits for the filter writes, writes the block-hash filter and the manifest. */
    Built commit(SummaryEntry s, Duration elapsed)
        throws IOException, InterruptedException, ExecutionException {
      List<FileEntry> files = new ArrayList<>(entries.size());
      for (Future<FileEntry> e : entries) {
        files.add(e.get());
      }
      BlockHashEntry b =
          StoreAssembly.writeBlockHashes(
              dir, new SyntheticKeys(~spec.seed()), spec.blocks(), spec.opts());
      Manifest m =
          StoreAssembly.writeManifest(
              dir,
              "synthetic: "
                  + spec.keys()
                  + " txids in "
                  + spec.files()
                  + " block files, seed "
                  + spec.seed(),
              spec.opts(),
              pass.records(),
              spec.blocks(),
              s,
              b,
              files);
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
    }

    /** Frees the filters not handed to a writer (after a failure). */
    @Override
    public void close() {
      for (BlockedBloomFilter f : byFile) {
        if (f != null) {
          f.close();
        }
      }
    }
  }
}
