package io.bbfindex.ingest.filterbuild;

import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.filters.io.LoadedFilter;
import io.bbfindex.ingest.store.ExpectedFilterFile;
import io.bbfindex.ingest.store.FilterStore;
import io.bbfindex.ingest.store.FilterStoreException;
import io.bbfindex.ingest.store.Manifest;
import io.bbfindex.ingest.store.Manifest.FileEntry;
import io.bbfindex.ingest.store.ManifestFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ForkJoinPool;
import org.jspecify.annotations.Nullable;

/**
 * Finds out what stands in a store directory ({@link StoreState}): reads the manifest and, when it
 * suits the build ({@link BuildPlan#incompatibility}), verifies every filter file it lists (full
 * checksums, the header CRC the manifest recorded, and that a per-file filter describes its block
 * file with the manifest's key count), the per-file filters in parallel, and only when the build
 * writes them ({@link BuildOptions#fileFilters()}). A verified summary stays mapped ({@link
 * #summary()}) until {@link #close}: an updated summary starts as its copy.
 *
 * <p>When the caller has just opened the store ({@link FilterStore#open}: every file it lists read
 * and checked, kind, block file, key count and salt included) and the manifest and files are still
 * those, the checks are not made again: the store's verified summary is lent instead of a mapping.
 */
final class StoreInspection implements AutoCloseable {

  private final StoreState state;
  private final @Nullable BlockedBloomFilter summary;

  /** What {@link #close} frees: the summary's mapping, or null when it is lent or absent. */
  private final @Nullable LoadedFilter owned;

  private StoreInspection(
      StoreState state, @Nullable BlockedBloomFilter summary, @Nullable LoadedFilter owned) {
    this.state = state;
    this.summary = summary;
    this.owned = owned;
  }

  private StoreInspection(StoreState state, @Nullable LoadedFilter summary) {
    this(state, summary == null ? null : summary.filter(), summary);
  }

  /**
   * Inspects {@code outDir}.
   *
   * @throws IOException if verifying is interrupted or fails otherwise than by a bad filter file
   *     (which is recorded in the state, not thrown)
   */
  static StoreInspection of(
      Path outDir,
      String datadir,
      BuildOptions opts,
      ForkJoinPool pool,
      @Nullable FilterStore verified)
      throws IOException {
    Manifest m;
    try {
      m =
          verified != null && verified.manifestUnchanged()
              ? verified.manifest()
              : ManifestFile.read(outDir);
    } catch (FilterStoreException e) {
      return new StoreInspection(
          StoreState.without(
              Files.exists(outDir.resolve(ManifestFile.FILE_NAME))
                  ? "manifest unusable (" + e.getMessage() + ")"
                  : "new store"),
          null);
    }
    if (BuildPlan.incompatibility(m, datadir, opts) != null) {
      // nothing of it will be kept: verifying its files would be wasted
      return new StoreInspection(new StoreState(m, null, Map.of(), null, null), null);
    }
    if (verified != null && verified.manifest().equals(m) && verified.changedOnDisk().isEmpty()) {
      return new StoreInspection(
          new StoreState(m, null, missingFileFilters(m, opts.fileFilters()), null, null),
          verified.summaryFilter(),
          null);
    }
    List<@Nullable String> problems =
        Parallel.map(pool, m.files(), e -> fileFilterProblem(outDir, e, opts.fileFilters()));
    Map<Integer, String> badFiles = new HashMap<>();
    for (int i = 0; i < problems.size(); i++) {
      if (problems.get(i) != null) {
        badFiles.put(m.files().get(i).file(), problems.get(i));
      }
    }
    String badBlockHashes = null;
    try {
      ExpectedFilterFile.load(outDir.resolve(m.blocks().name()), m.blocks().headerCrc()).close();
    } catch (FilterStoreException e) {
      badBlockHashes = e.getMessage();
    }
    LoadedFilter summary = null;
    String badSummary = null;
    try {
      summary =
          ExpectedFilterFile.load(outDir.resolve(m.summary().name()), m.summary().headerCrc());
    } catch (FilterStoreException e) {
      badSummary = e.getMessage();
    }
    return new StoreInspection(
        new StoreState(m, null, badFiles, badSummary, badBlockHashes), summary);
  }

  /**
   * The entries of a verified store whose filter file the build wants and which have none (the
   * store was built with per-file filters off).
   */
  private static Map<Integer, String> missingFileFilters(Manifest m, boolean fileFilters) {
    Map<Integer, String> missing = new HashMap<>();
    for (FileEntry e : m.files()) {
      if (fileFilters && !e.hasFilterFile()) {
        missing.put(e.file(), NO_FILTER_FILE);
      }
    }
    return missing;
  }

  private static final String NO_FILTER_FILE =
      "no filter file (it was built with per-file filters off)";

  /**
   * Why the filter file of {@code e} is unusable, or null when it verifies or is not wanted: with
   * per-file filters off, a file is never read (this build drops it, {@link StoreCommit}); with
   * them on, an entry without one needs it built.
   */
  private static @Nullable String fileFilterProblem(Path outDir, FileEntry e, boolean fileFilters) {
    if (!fileFilters) {
      return null;
    }
    if (!e.hasFilterFile()) {
      return NO_FILTER_FILE;
    }
    try (LoadedFilter l = ExpectedFilterFile.load(outDir.resolve(e.name()), e.headerCrc())) {
      if (l.metadata().blockFile() != e.file() || l.filter().count() != e.keys()) {
        return "filter file does not describe block file "
            + e.file()
            + " with "
            + e.keys()
            + " keys";
      }
      return null;
    } catch (FilterStoreException x) {
      return x.getMessage();
    }
  }

  StoreState state() {
    return state;
  }

  /**
   * The verified old summary (mapped, or lent by the verified store); empty when there is none or
   * it is bad.
   */
  Optional<BlockedBloomFilter> summary() {
    return Optional.ofNullable(summary);
  }

  /** Unmaps the old summary (a lent one stays with its store). */
  @Override
  public void close() {
    if (owned != null) {
      owned.close();
    }
  }
}
