package io.bbfindex.ingest.filterbuild;

import io.bbfindex.filters.BbfGeometry;
import io.bbfindex.filters.BbfSizing;
import io.bbfindex.filters.io.AtomicFileWriter;
import io.bbfindex.ingest.NodeIndex;
import io.bbfindex.ingest.Scratch;
import io.bbfindex.ingest.store.FilterStore;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * Builds a filter store from a node's txindex and block index: one summary BBF over every txid, one
 * BBF of block hashes, the manifest ({@link io.bbfindex.ingest.store.Manifest}) and, only with
 * {@link BuildOptions#fileFilters()}, one BBF per {@code blkNNNNN.dat} (its txids). The block file
 * (its manifest entry: 'f' record and exact row count) is the unit of building and rebuilding; the
 * summary is what the service probes.
 *
 * <h2>One pass, no grouping buffers</h2>
 *
 * The txindex is keyed by txid, so its rows come in random file order. Instead of grouping 1.4
 * billion txids by file (tens of GB), every per-file filter is sized <em>before</em> the scan from
 * the block index (the sum of nTx of the blocks stored in the file, an upper bound of its rows) and
 * each row is inserted directly into its file's filter and the summary ({@link TxFilterPass}).
 * Memory is the filters themselves (per-file filters about 1.26 bytes a txid at 1 %: eq. 3's 10.1
 * bits, `BbfSizing.forTarget`); when the filters to rebuild exceed {@link
 * BuildOptions#memoryBudgetBytes()}, the rest are built in further scans. A file whose rows exceed
 * its planned capacity (a block index that undercounts) is rebuilt at its real count in another
 * scan, so no filter ever runs above its target FPR.
 *
 * <h2>Summary sizing: why one summary over every txid, with headroom</h2>
 *
 * A negative lookup must cost a constant number of cache lines whatever the number of block files
 * (about 5,600 on mainnet): probing every per-file filter would cost 5,600 cache misses. One BBF
 * over all txids answers with one cache line (one group of at most 64 bytes) and its FPR, not the
 * sum of 5,600 FPRs. Range filters (unions of per-file filters) would need equal geometries across
 * files whose txid counts differ by 1,000x, and still several probes.
 *
 * <ul>
 *   <li>Target FPR: {@link BuildOptions#summaryFpr()} (1 % by default): the summary's FPR is the
 *       fraction of unknown txids that cost a LevelDB read.
 *   <li>Headroom: the summary is sized for {@code headroom x} (1.04 by default) the txids expected,
 *       and its capacity is then the largest key count at which eq. 3 still meets the target for
 *       the geometry chosen (any group count since filter format v2, so the real headroom is the
 *       option's, to within one group). While the node grows within capacity, a rebuild only adds
 *       the txids of the rebuilt files to the existing summary ({@code "updated"}: bits are only
 *       set, so no txid is ever lost, and re-adding keys already present changes nothing); only
 *       beyond capacity is it built afresh with a new geometry. The summary therefore costs at most
 *       1.05x the bits eq. 3 needs for the present txids; mainnet grows about 10 % a year, so 4 %
 *       lasts about five months between full rebuilds, and the tip and mempool layers answer for
 *       what arrived since the last refresh.
 *   <li>An updated summary's header key count is an upper bound (a rebuilt file's old keys are
 *       counted again; the filters API has no way to set the count); the manifest keeps the exact
 *       count, which is what {@code FilterStore.filters()} reports and models the FPR with.
 * </ul>
 *
 * <h2>Incremental rebuilds</h2>
 *
 * A per-file filter is kept when the manifest lists it with the same {@code 'f'} record (nBlocks,
 * nSize, nHeightLast) and its file loads with valid checksums and the header CRC the manifest
 * recorded; otherwise it is rebuilt, with the reason in the {@link BuildReport}. Nothing changed
 * (same tips, every file verified) means no scan at all. When the txindex moved but no 'f' record
 * did (the txindex catching up with the block index), one scan counts the rows per file and the
 * files whose count changed are rebuilt. Filter files are written atomically (FilterFile), then the
 * manifest last, atomically: a crash leaves either the old manifest (whose changed entries then
 * fail their CRC check and are rebuilt next time) or the new one.
 *
 * <h2>Parallelism</h2>
 *
 * Decoding dominates a scan (LevelDB iteration through JNI, Core VARINTs: about 1 M rows per
 * core-second in `./bbf-index bench ingest`, where a filter insert costs a few ns: see
 * FilterBenchmark.insert in `./bbf-index bench filters`), so with {@link
 * BuildOptions#parallelism()} p > 1 the scan is split by the txid's first byte over p - 1 decoder
 * threads with their own iterators, feeding one inserter thread ({@link ParallelTxScan}; one writer
 * per filter, as BBF inserts are not atomic). Verifying the existing filter files (CRC32C of every
 * byte) and writing the new ones also run on p threads.
 */
public final class FilterBuilder {

  /** The summary filter's file name. */
  public static final String SUMMARY_NAME = "tx-summary.bbf";

  /** The block-hash filter's file name. */
  public static final String BLOCKS_NAME = "block-hashes.bbf";

  private static final String LOCK_NAME = ".build.lock";
  private static final System.Logger LOG = System.getLogger(FilterBuilder.class.getName());

  private FilterBuilder() {}

  /** File name of block file {@code file}'s txid filter: {@code tx-blk00000.bbf}. */
  public static String fileFilterName(int file) {
    return String.format(Locale.ROOT, "tx-blk%05d.bbf", file);
  }

  /**
   * How a build report names block file {@code e}'s unit of work: its filter file, or {@code
   * blkNNNNN.dat} when it has none (per-file filters off).
   */
  static String reportName(io.bbfindex.ingest.store.Manifest.FileEntry e) {
    return e.hasFilterFile() ? e.name() : String.format(Locale.ROOT, "blk%05d.dat", e.file());
  }

  /**
   * Builds or brings up to date the store in {@code outDir} (created if missing).
   *
   * @throws FilterBuildException if another build holds the directory, or the block index is
   *     unusable for sizing
   * @throws IOException if writing fails (the old manifest then still stands)
   * @throws io.bbfindex.ingest.records.IndexReadException if a txindex row is corrupt
   */
  public static BuildReport build(
      NodeIndex index, Path outDir, BuildOptions opts, ProgressListener progress)
      throws IOException {
    return build(ChainSource.of(index), outDir, opts, progress);
  }

  /**
   * {@link #build(NodeIndex, Path, BuildOptions, ProgressListener)} from any {@link ChainSource}.
   */
  public static BuildReport build(
      ChainSource index, Path outDir, BuildOptions opts, ProgressListener progress)
      throws IOException {
    return build(index, outDir, opts, progress, null);
  }

  /**
   * As {@link #build(ChainSource, Path, BuildOptions, ProgressListener)}; {@code verified}, when
   * not null, is the store in {@code outDir} as {@link FilterStore#open} verified it: while the
   * manifest and its files are still the ones verified, their checksums are not checked again.
   */
  static BuildReport build(
      ChainSource index,
      Path outDir,
      BuildOptions opts,
      ProgressListener progress,
      @Nullable FilterStore verified)
      throws IOException {
    Objects.requireNonNull(index, "index");
    Objects.requireNonNull(outDir, "outDir");
    Objects.requireNonNull(opts, "opts");
    Objects.requireNonNull(progress, "progress");
    if (Files.exists(outDir) && !Files.isDirectory(outDir)) {
      throw new FilterBuildException(
          outDir, "is a file, not a directory: a filter store is a directory (pass a new path)");
    }
    try {
      Files.createDirectories(outDir);
      AtomicFileWriter.closeToOthers(outDir); // its files hold the salt
    } catch (FileSystemException e) {
      throw new FilterBuildException(
          outDir, "cannot create the filter store directory: " + reason(e), e);
    }
    try (FileChannel ch =
        FileChannel.open(
            outDir.resolve(LOCK_NAME), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      FileLock lock;
      try {
        lock = ch.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        throw new FilterBuildException(
            outDir, "another build is writing this filter store; wait for it to finish");
      }
      // holding the lock: temporary files here are orphans of a killed build
      List<Path> orphans = Scratch.removeTempFiles(outDir);
      if (!orphans.isEmpty()) {
        LOG.log(System.Logger.Level.INFO, "removed temporary files of a killed build: " + orphans);
      }
      try (Scratch.ExitHook hook =
          Scratch.onExit("bbf-build-cleanup", () -> stopWritesAndRemoveTempFiles(outDir))) {
        return new BuildRun(index, outDir, opts, progress, verified).run();
      } finally {
        lock.release();
      }
    }
  }

  /**
   * The shutdown hook's cleanup: the build's own writes go on while it runs, so stop them first.
   */
  private static void stopWritesAndRemoveTempFiles(Path outDir) {
    try {
      if (!AtomicFileWriter.stopWrites(Scratch.EXIT_CLEANUP_PATIENCE)) {
        System.err.println("bbf-index: a filter write in " + outDir + " did not end in time");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      Scratch.removeTempFiles(outDir);
    } catch (IOException | RuntimeException e) {
      System.err.println("bbf-index: could not remove temporary files in " + outDir + ": " + e);
    }
  }

  private static String reason(FileSystemException e) {
    return e.getReason() != null ? e.getReason() : e.getClass().getSimpleName();
  }

  /**
   * What the app's {@code serve} calls: verifies the store in {@code outDir}, rebuilds whatever is
   * missing, corrupt or stale (logging what it did), and opens it. A store that still fails to open
   * after the rebuild is refused with the exception, never served.
   *
   * <p>The store is verified once: it is first opened ({@link FilterStore#openMappedFirst}: every
   * file mapped and checked, its verified in-memory copy made behind it), the build then trusts
   * those checks instead of mapping and checking the files again, and when it rebuilt nothing that
   * store is what is served ({@link FilterStore#reopen}). At mainnet scale that saves reading and
   * checking 1.75 GiB of summary a second time at every start. A store that does not open goes
   * through the build's own checks, which say what to rebuild.
   */
  public static FilterStore ensureBuilt(
      NodeIndex index, Path outDir, BuildOptions opts, ProgressListener progress)
      throws IOException {
    return ensureBuilt(index, outDir, opts, progress, openIfValid(outDir));
  }

  /**
   * As {@link #ensureBuilt(NodeIndex, Path, BuildOptions, ProgressListener)}, with the store's
   * opening and verification started earlier by {@code ahead} (e.g. before the node's index was
   * opened: the two then overlap). The store is checked against {@code index} exactly as if it had
   * been opened here.
   *
   * @throws IllegalArgumentException if {@code ahead} verifies another directory
   */
  public static FilterStore ensureBuilt(
      NodeIndex index,
      Path outDir,
      BuildOptions opts,
      ProgressListener progress,
      VerifiedAhead ahead)
      throws IOException {
    if (!ahead.dir().equals(outDir)) {
      throw new IllegalArgumentException(
          "the store verified ahead is " + ahead.dir() + ", not " + outDir);
    }
    return ensureBuilt(index, outDir, opts, progress, ahead.take());
  }

  private static FilterStore ensureBuilt(
      NodeIndex index,
      Path outDir,
      BuildOptions opts,
      ProgressListener progress,
      @Nullable FilterStore verified)
      throws IOException {
    BuildReport report;
    try {
      report = build(ChainSource.of(index), outDir, opts, progress, verified);
    } catch (IOException | RuntimeException e) {
      if (verified != null) {
        verified.close();
      }
      throw e;
    }
    LOG.log(
        report.nothingRebuilt() ? System.Logger.Level.INFO : System.Logger.Level.WARNING,
        report.nothingRebuilt()
            ? "filter store " + outDir + " verified, nothing to rebuild"
            : report.describe());
    return verified == null ? FilterStore.openMappedFirst(outDir) : verified.reopen();
  }

  /** The store in {@code outDir} opened and verified, or null when it is missing or bad. */
  static @Nullable FilterStore openIfValid(Path outDir) {
    return openIfValid(outDir, null);
  }

  /** As {@link #openIfValid(Path)}, its copies made on {@code copyOn} unless null (the default). */
  static @Nullable FilterStore openIfValid(Path outDir, @Nullable Executor copyOn) {
    if (!Files.exists(outDir.resolve(io.bbfindex.ingest.store.ManifestFile.FILE_NAME))) {
      return null;
    }
    try {
      return copyOn == null
          ? FilterStore.openMappedFirst(outDir)
          : FilterStore.openMappedFirst(outDir, copyOn);
    } catch (io.bbfindex.ingest.store.FilterStoreException e) {
      return null; // the build names what is bad and rebuilds it
    }
  }

  /**
   * {@link #ensureBuilt(NodeIndex, Path, BuildOptions, ProgressListener)} printing progress to
   * stderr.
   */
  public static FilterStore ensureBuilt(NodeIndex index, Path outDir, BuildOptions opts)
      throws IOException {
    return ensureBuilt(index, outDir, opts, new ConsoleProgress());
  }

  /**
   * The largest key count at which {@code g} still meets {@code fpr} by eq. 3 (binary search; the
   * FPR grows with the count).
   */
  public static long capacity(BbfGeometry g, double fpr) {
    long lo = 0;
    long hi = 1;
    while (BbfSizing.modelFpr(hi, g) <= fpr) {
      lo = hi;
      hi *= 2;
    }
    while (hi - lo > 1) {
      long mid = lo + (hi - lo) / 2;
      if (BbfSizing.modelFpr(mid, g) <= fpr) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
