package io.bbfindex.ingest.store;

import static io.bbfindex.ingest.encoding.HashKeys.toDisplayHex;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The store's table of contents: where the filters came from (datadir, tips), how they were derived
 * (derivation id, salt, target FPRs) and, per filter, its exact key count and the CRC32C of its
 * file header. The header CRC binds the manifest to one exact filter file: the header holds the
 * data CRC, the geometry, the key count and the build time, so a stale, swapped or rewritten file
 * no longer matches even when it is itself valid.
 *
 * <p>This record is the data only: {@link ManifestCodec} renders and parses its text form, {@link
 * ManifestFile} stores it as {@value ManifestFile#FILE_NAME} in the store's directory.
 */
public record Manifest(
    int filterFormatVersion,
    long createdMillis,
    String datadir,
    byte[] tipHash,
    int tipHeight,
    int txindexTipHeight,
    int derivationId,
    long salt,
    double targetFpr,
    double summaryFpr,
    double summaryHeadroom,
    long records,
    SummaryEntry summary,
    BlockHashEntry blocks,
    List<FileEntry> files) {

  /**
   * The summary filter over every txid. {@code capacity}: keys it takes before its FPR exceeds the
   * target.
   */
  public record SummaryEntry(String name, long keys, long capacity, int headerCrc) {}

  /**
   * The filter of block hashes; {@code digest}: SHA-256 over the sorted hashes, to notice any
   * change.
   */
  public record BlockHashEntry(String name, long keys, String digest, int headerCrc) {}

  /**
   * One block file's txid filter, or its bookkeeping alone when no filter file was written ({@link
   * #NO_FILTER_FILE} as the name, crc 0: the build option {@code fileFilters} off).
   *
   * @param keys 't' rows pointing into this file (exact)
   * @param capacity keys the filter was (or would have been) sized for
   * @param fBlocks the 'f' record's nBlocks at build time
   * @param fSize the 'f' record's nSize (bytes of the blk file in use) at build time
   * @param heightLast the 'f' record's nHeightLast
   */
  public record FileEntry(
      int file,
      String name,
      long keys,
      long capacity,
      long fBlocks,
      long fSize,
      long heightLast,
      int headerCrc) {

    /** {@link #name()} of an entry without a filter file. */
    public static final String NO_FILTER_FILE = "-";

    /** Whether a filter file {@link #name()} belongs to this entry. */
    public boolean hasFilterFile() {
      return !NO_FILTER_FILE.equals(name);
    }

    /** This entry's bookkeeping without its filter file. */
    public FileEntry withoutFilterFile() {
      return new FileEntry(file, NO_FILTER_FILE, keys, capacity, fBlocks, fSize, heightLast, 0);
    }
  }

  public Manifest {
    Objects.requireNonNull(datadir, "datadir");
    Objects.requireNonNull(tipHash, "tipHash");
    Objects.requireNonNull(summary, "summary");
    Objects.requireNonNull(blocks, "blocks");
    if (datadir.indexOf('\n') >= 0 || datadir.indexOf('\r') >= 0) {
      throw new IllegalArgumentException("datadir must not contain line breaks: " + datadir);
    }
    if (tipHash.length != 32) {
      throw new IllegalArgumentException("tipHash must be 32 bytes: " + tipHash.length);
    }
    tipHash = tipHash.clone();
    files = files.stream().sorted(Comparator.comparingInt(FileEntry::file)).toList();
  }

  @Override
  public byte[] tipHash() {
    return tipHash.clone();
  }

  /** The active tip's hash as explorers show it. */
  public String tipHashHex() {
    return toDisplayHex(tipHash);
  }

  /** The entry of block file {@code file}, if it has one. */
  public Optional<FileEntry> file(int file) {
    // a binary search of the sorted entries, the first of equals: the build plan asks this of
    // every block file (5,600 on mainnet) at every start, which a linear scan made quadratic
    int lo = 0;
    int hi = files.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (files.get(mid).file() < file) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo < files.size() && files.get(lo).file() == file
        ? Optional.of(files.get(lo))
        : Optional.empty();
  }

  /** This manifest with other per-file entries (the builder's and tests' way to derive one). */
  public Manifest withFiles(List<FileEntry> newFiles) {
    return with(createdMillis, txindexTipHeight, summary, blocks, newFiles);
  }

  /** This manifest with another block-hash entry (e.g. a test's digest of another index). */
  public Manifest withBlocks(BlockHashEntry newBlocks) {
    return with(createdMillis, txindexTipHeight, summary, newBlocks, files);
  }

  /** This manifest with another summary entry (a store whose summary file was replaced). */
  public Manifest withSummary(SummaryEntry newSummary) {
    return with(createdMillis, txindexTipHeight, newSummary, blocks, files);
  }

  /** This manifest as if written at {@code millis}. */
  public Manifest withCreatedMillis(long millis) {
    return with(millis, txindexTipHeight, summary, blocks, files);
  }

  /** This manifest with another txindex tip height. */
  public Manifest withTxindexTipHeight(int height) {
    return with(createdMillis, height, summary, blocks, files);
  }

  /** The one copy of every field, the fields a derivation can change given. */
  private Manifest with(
      long newCreatedMillis,
      int newTxindexTipHeight,
      SummaryEntry newSummary,
      BlockHashEntry newBlocks,
      List<FileEntry> newFiles) {
    return new Manifest(
        filterFormatVersion,
        newCreatedMillis,
        datadir,
        tipHash,
        tipHeight,
        newTxindexTipHeight,
        derivationId,
        salt,
        targetFpr,
        summaryFpr,
        summaryHeadroom,
        records,
        newSummary,
        newBlocks,
        newFiles);
  }

  /** Sum of the per-file key counts. */
  public long txKeys() {
    return files.stream().mapToLong(FileEntry::keys).sum();
  }

  /**
   * Equal when every field is (tip hash included), doubles as {@link Double#compare} tells them
   * apart, which is when {@link Double#toString} does: so, for any manifest that parses, exactly
   * when the two render the same text. Compared field by field, not by rendering both (what this
   * did before): every start of serve asks it of the store's manifest, a line per block file (5,600
   * on mainnet), where two renderings cost ~0.1 s of the way to the first answer.
   */
  @Override
  public boolean equals(Object o) {
    // the same instance first: the build compares the verified store's manifest with itself
    // (StoreInspection) at every start, a FileEntry comparison per block file otherwise
    return o == this
        || (o instanceof Manifest m
            && filterFormatVersion == m.filterFormatVersion
            && createdMillis == m.createdMillis
            && datadir.equals(m.datadir)
            && Arrays.equals(tipHash, m.tipHash)
            && tipHeight == m.tipHeight
            && txindexTipHeight == m.txindexTipHeight
            && derivationId == m.derivationId
            && salt == m.salt
            && Double.compare(targetFpr, m.targetFpr) == 0
            && Double.compare(summaryFpr, m.summaryFpr) == 0
            && Double.compare(summaryHeadroom, m.summaryHeadroom) == 0
            && records == m.records
            && summary.equals(m.summary)
            && blocks.equals(m.blocks)
            && files.equals(m.files));
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        datadir, Arrays.hashCode(tipHash), tipHeight, createdMillis, records, blocks);
  }

  @Override
  public String toString() {
    return "Manifest["
        + datadir
        + ", tip "
        + tipHeight
        + " "
        + tipHashHex()
        + ", "
        + files.size()
        + " block files, "
        + txKeys()
        + " txids]";
  }
}
