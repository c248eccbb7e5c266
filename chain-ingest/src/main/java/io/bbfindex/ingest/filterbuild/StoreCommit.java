package io.bbfindex.ingest.filterbuild;

import io.bbfindex.filters.BbfGeometry;
import io.bbfindex.filters.BbfSizing;
import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.filters.io.FilterFile;
import io.bbfindex.filters.io.FilterKind;
import io.bbfindex.filters.io.FilterMetadata;
import io.bbfindex.ingest.filterbuild.SourcePlan.FileSource;
import io.bbfindex.ingest.store.Manifest;
import io.bbfindex.ingest.store.Manifest.BlockHashEntry;
import io.bbfindex.ingest.store.Manifest.FileEntry;
import io.bbfindex.ingest.store.Manifest.SummaryEntry;
import io.bbfindex.ingest.store.ManifestFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Everything a build writes to the store directory, each file atomically (FilterFile,
 * ManifestFile), and each filter's manifest entry with the header CRC that binds the manifest to
 * that exact file. The manifest is written last, so a crash leaves the old manifest (whose changed
 * entries then fail their CRC check and are rebuilt next time) or the new one.
 */
final class StoreCommit {

  private final ChainSource index;
  private final Path outDir;
  private final BuildOptions opts;

  StoreCommit(ChainSource index, Path outDir, BuildOptions opts) {
    this.index = index;
    this.outDir = outDir;
    this.opts = opts;
  }

  /**
   * Writes block file {@code fs}'s txid filter holding {@code keys} txids, and closes the filter.
   *
   * @throws IOException if writing fails
   */
  FileEntry writeFileFilter(FileSource fs, BlockedBloomFilter filter, long keys)
      throws IOException {
    String name = FilterBuilder.fileFilterName(fs.file());
    Path p = outDir.resolve(name);
    try {
      FilterFile.write(
          p,
          filter,
          new FilterMetadata(
              FilterKind.TX_BLOCK_FILE,
              fs.file(),
              fs.fSize(),
              fs.lastBlock(),
              System.currentTimeMillis()));
      long capacity = FilterBuilder.capacity(filter.geometry(), opts.targetFpr());
      return new FileEntry(
          fs.file(),
          name,
          keys,
          capacity,
          fs.fBlocks(),
          fs.fSize(),
          fs.heightLast(),
          FilterFile.headerCrc(p));
    } finally {
      filter.close();
    }
  }

  /**
   * The manifest entry of block file {@code fs} holding {@code keys} txids when no filter file is
   * written for it ({@link BuildOptions#fileFilters()} off): its bookkeeping alone.
   */
  FileEntry recordFileWithoutFilter(FileSource fs, long keys) {
    return new FileEntry(
        fs.file(),
        FileEntry.NO_FILTER_FILE,
        keys,
        Math.max(keys, fs.capacity()),
        fs.fBlocks(),
        fs.fSize(),
        fs.heightLast(),
        0);
  }

  /**
   * With per-file filters off, deletes the filter files of kept entries that still have one (a
   * store built with them on), so they cost neither disk nor anything at start.
   *
   * @param kept the kept entries; returned as they are with per-file filters on
   * @param removed receives the names of the deleted files
   * @return the entries, without filter files when they are off
   * @throws IOException if a file cannot be deleted
   */
  List<FileEntry> dropFileFilters(List<FileEntry> kept, List<String> removed) throws IOException {
    if (opts.fileFilters()) {
      return kept;
    }
    List<FileEntry> out = new ArrayList<>(kept.size());
    for (FileEntry e : kept) {
      if (e.hasFilterFile()) {
        if (Files.deleteIfExists(outDir.resolve(e.name()))) {
          removed.add(e.name());
        }
        out.add(e.withoutFilterFile());
      } else {
        out.add(e);
      }
    }
    return out;
  }

  /**
   * Writes the summary, and closes it.
   *
   * @param keys the exact txid count the manifest records (the header's may be an upper bound)
   * @param bytesCovered bytes of every block file in use
   * @throws IOException if writing fails
   */
  SummaryEntry writeSummary(BlockedBloomFilter summary, long keys, long capacity, long bytesCovered)
      throws IOException {
    Path p = outDir.resolve(FilterBuilder.SUMMARY_NAME);
    try {
      FilterFile.write(
          p,
          summary,
          new FilterMetadata(
              FilterKind.TX_SUMMARY,
              FilterMetadata.NO_BLOCK_FILE,
              bytesCovered,
              index.tipHash(),
              System.currentTimeMillis()));
    } finally {
      summary.close();
    }
    return new SummaryEntry(FilterBuilder.SUMMARY_NAME, keys, capacity, FilterFile.headerCrc(p));
  }

  /**
   * Builds and writes the filter of the node's block hashes (small: no txindex scan).
   *
   * @throws IOException if writing fails
   */
  BlockHashEntry writeBlockHashes(SourcePlan source) throws IOException {
    BbfGeometry g = BbfSizing.forTarget(Math.max(1, source.blockHashes().size()), opts.targetFpr());
    Path p = outDir.resolve(FilterBuilder.BLOCKS_NAME);
    try (BlockedBloomFilter f = BlockedBloomFilter.create(g, opts.salt())) {
      for (byte[] h : source.blockHashes()) {
        f.add(h, 0);
      }
      FilterFile.write(
          p,
          f,
          new FilterMetadata(
              FilterKind.BLOCK_HASHES,
              FilterMetadata.NO_BLOCK_FILE,
              0,
              index.tipHash(),
              System.currentTimeMillis()));
    }
    return new BlockHashEntry(
        FilterBuilder.BLOCKS_NAME,
        source.blockHashes().size(),
        source.blockDigest(),
        FilterFile.headerCrc(p));
  }

  /**
   * Deletes the filter files of {@code vanished} entries.
   *
   * @return the names of the files that existed
   * @throws IOException if one cannot be deleted
   */
  List<String> removeVanished(List<FileEntry> vanished) throws IOException {
    List<String> removed = new ArrayList<>();
    for (FileEntry e : vanished) {
      if (e.hasFilterFile() && Files.deleteIfExists(outDir.resolve(e.name()))) {
        removed.add(e.name());
      }
    }
    return removed;
  }

  /**
   * Writes the manifest listing these filters, with the node's tips and the build options.
   *
   * @param prior the manifest on disk the build started from, or null: when the new one would
   *     differ from it only in its creation time, nothing is written and {@code prior} is returned
   *     (every start of serve over an up-to-date store: 0.57 MB rendered, written and synced at
   *     mainnet geometry, for nothing)
   * @param txindexTip the txindex's tip height, -1 if it never committed
   * @param records txindex rows (the per-file keys plus stray rows)
   * @throws IOException if writing fails; the old manifest then still stands
   */
  Manifest writeManifest(
      @Nullable Manifest prior,
      int txindexTip,
      long records,
      SummaryEntry summary,
      BlockHashEntry blocks,
      Collection<FileEntry> files)
      throws IOException {
    Manifest m =
        new Manifest(
            FilterFile.FORMAT_VERSION,
            System.currentTimeMillis(),
            index.datadir().toString(),
            index.tipHash(),
            index.tipHeight(),
            txindexTip,
            opts.salt() == 0
                ? BlockedBloomFilter.DERIVATION_UNSALTED
                : BlockedBloomFilter.DERIVATION_SALTED,
            opts.salt(),
            opts.targetFpr(),
            opts.summaryFpr(),
            opts.summaryHeadroom(),
            records,
            summary,
            blocks,
            List.copyOf(files));
    if (prior != null && m.withCreatedMillis(prior.createdMillis()).equals(prior)) {
      return prior;
    }
    ManifestFile.write(outDir, m);
    return m;
  }
}
