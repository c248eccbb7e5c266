package io.bbfindex.benchmarks.synthetic;

import io.bbfindex.filters.BbfGeometry;
import io.bbfindex.filters.BbfSizing;
import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.filters.io.FilterFile;
import io.bbfindex.filters.io.FilterKind;
import io.bbfindex.filters.io.FilterMetadata;
import io.bbfindex.ingest.filterbuild.BuildOptions;
import io.bbfindex.ingest.filterbuild.FilterBuilder;
import io.bbfindex.ingest.store.Manifest;
import io.bbfindex.ingest.store.Manifest.BlockHashEntry;
import io.bbfindex.ingest.store.Manifest.FileEntry;
import io.bbfindex.ingest.store.Manifest.SummaryEntry;
import io.bbfindex.ingest.store.ManifestFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * Writes a filter store that {@link io.bbfindex.ingest.store.FilterStore#open} serves, from filters
 * a benchmark filled itself, with the sizing rules, file names, file format and manifest of {@link
 * FilterBuilder}. It exists because {@code FilterBuilder.build} sizes and fills its filters from a
 * {@code NodeIndex} (block index + txindex of a data directory), which a synthetic key set or a
 * bare synthetic txindex does not have; everything after the sizing (the ingest pass {@code
 * TxFilterPass}, {@code FilterFile.write}, the {@code Manifest}) is the product's own code.
 *
 * <p>Sizing, as {@code BuildRun} does it: a per-file filter for its exact key count at {@link
 * BuildOptions#targetFpr()}; the summary for {@code headroom x} the keys at {@link
 * BuildOptions#summaryFpr()}, its capacity from {@link FilterBuilder#capacity}.
 */
public final class StoreAssembly {

  /**
   * Block size every synthetic block file claims ({@code 'f'} nSize): Core's MAX_BLOCKFILE_SIZE.
   */
  public static final long BLOCK_FILE_BYTES = 128L << 20;

  private StoreAssembly() {}

  /** An empty per-file filter for {@code keys} txids. */
  public static BlockedBloomFilter newFileFilter(long keys, BuildOptions opts) {
    return BlockedBloomFilter.create(
        BbfSizing.forTarget(Math.max(1, keys), opts.targetFpr()), opts.salt());
  }

  /** An empty summary filter for {@code expectedKeys} txids, with the builder's headroom. */
  public static BlockedBloomFilter newSummary(long expectedKeys, BuildOptions opts) {
    BbfGeometry g =
        BbfSizing.forTarget(
            (long) Math.ceil(Math.max(1, expectedKeys) * opts.summaryHeadroom()),
            opts.summaryFpr());
    return BlockedBloomFilter.create(g, opts.salt());
  }

  /** Writes block file {@code file}'s filter as {@code tx-blkNNNNN.bbf}; the manifest entry. */
  public static FileEntry writeFileFilter(
      Path dir,
      int file,
      BlockedBloomFilter f,
      long keys,
      long blocksInFile,
      long heightLast,
      BuildOptions opts)
      throws IOException {
    String name = FilterBuilder.fileFilterName(file);
    Path p = dir.resolve(name);
    FilterFile.write(
        p,
        f,
        new FilterMetadata(
            FilterKind.TX_BLOCK_FILE,
            file,
            BLOCK_FILE_BYTES,
            new byte[32],
            System.currentTimeMillis()));
    return new FileEntry(
        file,
        name,
        keys,
        FilterBuilder.capacity(f.geometry(), opts.targetFpr()),
        blocksInFile,
        BLOCK_FILE_BYTES,
        heightLast,
        FilterFile.headerCrc(p));
  }

  /** Writes the summary as {@link FilterBuilder#SUMMARY_NAME}; the manifest entry. */
  public static SummaryEntry writeSummary(
      Path dir, BlockedBloomFilter summary, long keys, long blockFiles, BuildOptions opts)
      throws IOException {
    Path p = dir.resolve(FilterBuilder.SUMMARY_NAME);
    FilterFile.write(
        p,
        summary,
        new FilterMetadata(
            FilterKind.TX_SUMMARY,
            FilterMetadata.NO_BLOCK_FILE,
            blockFiles * BLOCK_FILE_BYTES,
            new byte[32],
            System.currentTimeMillis()));
    return new SummaryEntry(
        FilterBuilder.SUMMARY_NAME,
        keys,
        FilterBuilder.capacity(summary.geometry(), opts.summaryFpr()),
        FilterFile.headerCrc(p));
  }

  /**
   * Puts another store's summary file into {@code dir} (a hard link, or a copy where linking is
   * refused): two stores over the same txids have bit-identical summaries, whatever the split into
   * block files.
   */
  public static SummaryEntry shareSummary(Path dir, Path otherStore, SummaryEntry entry)
      throws IOException {
    link(otherStore, dir, entry.name());
    return entry;
  }

  /**
   * Store {@code from} as the builder writes it by default ({@link BuildOptions#fileFilters()}
   * off), in {@code to}: the summary and block-hash files linked, the manifest's per-file entries
   * without filter files.
   */
  public static Manifest withoutFileFilters(Path from, Path to) throws IOException {
    Manifest m = ManifestFile.read(from);
    Files.createDirectories(to);
    link(from, to, m.summary().name());
    link(from, to, m.blocks().name());
    Manifest without = m.withFiles(m.files().stream().map(FileEntry::withoutFilterFile).toList());
    ManifestFile.write(to, without);
    return without;
  }

  /**
   * {@code fromDir/name} as {@code toDir/name}: a hard link, or a copy where linking is refused.
   */
  private static void link(Path fromDir, Path toDir, String name) throws IOException {
    Path from = fromDir.resolve(name);
    Path to = toDir.resolve(name);
    try {
      Files.createLink(to, from);
    } catch (IOException | UnsupportedOperationException e) {
      Files.copy(from, to);
    }
  }

  /**
   * Writes a block-hash filter of {@code count} synthetic block hashes (key indexes 0 .. count-1 of
   * {@code hashes}) as {@link FilterBuilder#BLOCKS_NAME}; the manifest entry, whose digest is
   * SHA-256 over the hashes in index order (the builder sorts real hashes first; the order only
   * matters for change detection, which a benchmark store never sees).
   */
  public static BlockHashEntry writeBlockHashes(
      Path dir, SyntheticKeys hashes, long count, BuildOptions opts) throws IOException {
    MessageDigest md = sha256();
    byte[] h = new byte[SyntheticKeys.KEY_BYTES];
    Path p = dir.resolve(FilterBuilder.BLOCKS_NAME);
    try (BlockedBloomFilter f =
        BlockedBloomFilter.create(
            BbfSizing.forTarget(Math.max(1, count), opts.targetFpr()), opts.salt())) {
      for (long i = 0; i < count; i++) {
        hashes.key(i, h, 0);
        f.add(h, 0);
        md.update(h);
      }
      FilterFile.write(
          p,
          f,
          new FilterMetadata(
              FilterKind.BLOCK_HASHES,
              FilterMetadata.NO_BLOCK_FILE,
              0,
              new byte[32],
              System.currentTimeMillis()));
    }
    return new BlockHashEntry(
        FilterBuilder.BLOCKS_NAME,
        count,
        HexFormat.of().formatHex(md.digest()),
        FilterFile.headerCrc(p));
  }

  /**
   * Writes the manifest last (atomically), as the builder does; {@code source} goes in its datadir
   * line.
   */
  public static Manifest writeManifest(
      Path dir,
      String source,
      BuildOptions opts,
      long records,
      long blocks,
      SummaryEntry summary,
      BlockHashEntry blockHashes,
      List<FileEntry> files)
      throws IOException {
    int tipHeight = (int) Math.max(0, blocks - 1);
    Manifest m =
        new Manifest(
            FilterFile.FORMAT_VERSION,
            System.currentTimeMillis(),
            source,
            new byte[32],
            tipHeight,
            tipHeight,
            opts.salt() == 0
                ? BlockedBloomFilter.DERIVATION_UNSALTED
                : BlockedBloomFilter.DERIVATION_SALTED,
            opts.salt(),
            opts.targetFpr(),
            opts.summaryFpr(),
            opts.summaryHeadroom(),
            records,
            summary,
            blockHashes,
            files);
    ManifestFile.write(dir, m);
    return m;
  }

  /** Bytes of every regular file in {@code dir} (not recursive). */
  public static long directoryBytes(Path dir) throws IOException {
    try (var s = Files.list(dir)) {
      long total = 0;
      for (Path p : s.toList()) {
        if (Files.isRegularFile(p)) {
          total += Files.size(p);
        }
      }
      return total;
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }
}
