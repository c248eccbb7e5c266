package io.bbfindex.ingest.store;

import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.filters.io.FilterKind;
import io.bbfindex.filters.io.FilterMetadata;
import io.bbfindex.filters.io.LoadedFilter;
import io.bbfindex.ingest.store.Manifest.FileEntry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A filter store opened for serving: the manifest and every filter file, validated and
 * memory-mapped (read-only, no copy).
 *
 * <p>{@link #open} refuses the whole store, naming the bad file(s) in a {@link
 * FilterStoreException}, if the manifest is missing or corrupt, or any filter file is missing,
 * fails its checksums (FilterFile validates every header field and the CRC32C of header and data),
 * is not the file the manifest lists (header CRC), or describes something else (kind, block file,
 * key count, salt). A store is never served in part: the app's serve path calls {@code
 * FilterBuilder.ensureBuilt}, which rebuilds what is bad first.
 *
 * <p>Lookups: {@link #mightContainTx} probes only the summary filter over every txid, one cache
 * line whatever the number of block files; {@link #candidateFiles} probes the per-file filters
 * (diagnostics), when the store has them: they are written only with {@code
 * BuildOptions.fileFilters} on, and then validated and mapped here like the others. A store without
 * them maps nothing but the summary and the block-hash filter. Thread-safe for lookups; {@link
 * #close} unmaps everything.
 *
 * <p>The mapped lookup filters are trusted only while their files stay as verified: a read that
 * faults, or a "no" from a file changed in place since (size or modification time, see {@link
 * FileFingerprint}), is a {@link FilterStoreFaultException} instead of an answer.
 */
public final class FilterStore implements AutoCloseable {

  private final Path dir;
  private final Manifest manifest;
  private final LoadedFilter summary;
  private final LoadedFilter blocks;
  private final List<LoadedFilter> perFile;
  private final List<FileEntry> perFileEntries;
  private final Map<String, Double> fillRatios = new ConcurrentHashMap<>();

  /** The lookup filters as verified: a "no" is trusted only while its file is still this one. */
  private final FileFingerprint summaryPrint;

  private final FileFingerprint blocksPrint;

  /**
   * Set at the first fault, for good: a rebuild may later rename a good file over the faulted path,
   * and the path's new inode must not vouch for the old mapping's bits.
   */
  private volatile String voided;

  private volatile boolean closed;

  private FilterStore(
      Path dir,
      Manifest manifest,
      LoadedFilter summary,
      LoadedFilter blocks,
      List<LoadedFilter> perFile,
      FileFingerprint summaryPrint,
      FileFingerprint blocksPrint) {
    this.summaryPrint = summaryPrint;
    this.blocksPrint = blocksPrint;
    this.dir = dir;
    this.manifest = manifest;
    this.summary = summary;
    this.blocks = blocks;
    this.perFile = List.copyOf(perFile);
    this.perFileEntries = manifest.files().stream().filter(FileEntry::hasFilterFile).toList();
  }

  /**
   * Opens the store in {@code dir}.
   *
   * @throws FilterStoreException naming the manifest or the (first) bad filter file; {@link
   *     FilterStoreException#badFiles()} lists every bad file
   */
  public static FilterStore open(Path dir) throws FilterStoreException {
    Objects.requireNonNull(dir, "dir");
    Manifest m = ManifestFile.read(dir);
    // taken before the checksums are verified, so a change during verification is caught too
    FileFingerprint summaryPrint = fingerprint(dir.resolve(m.summary().name()));
    FileFingerprint blocksPrint = fingerprint(dir.resolve(m.blocks().name()));
    List<LoadedFilter> loaded = Collections.synchronizedList(new ArrayList<>());
    List<FilterStoreException> problems = Collections.synchronizedList(new ArrayList<>());
    List<Check> checks = new ArrayList<>();
    checks.add(
        new Check(
            m.summary().name(),
            m.summary().headerCrc(),
            FilterKind.TX_SUMMARY,
            FilterMetadata.NO_BLOCK_FILE,
            -m.summary().keys() - 1));
    checks.add(
        new Check(
            m.blocks().name(),
            m.blocks().headerCrc(),
            FilterKind.BLOCK_HASHES,
            FilterMetadata.NO_BLOCK_FILE,
            m.blocks().keys()));
    for (FileEntry f : m.files()) {
      if (f.hasFilterFile()) { // none by default: BuildOptions.fileFilters
        checks.add(
            new Check(f.name(), f.headerCrc(), FilterKind.TX_BLOCK_FILE, f.file(), f.keys()));
      }
    }
    LoadedFilter[] slots = new LoadedFilter[checks.size()];
    // CRC32C of every byte dominates opening a large store: spread it over the cores
    java.util.stream.IntStream.range(0, checks.size())
        .parallel()
        .forEach(
            i -> {
              try {
                slots[i] = checks.get(i).load(dir, m.salt());
                loaded.add(slots[i]);
              } catch (FilterStoreException e) {
                problems.add(e);
              }
            });
    if (!problems.isEmpty()) {
      loaded.forEach(LoadedFilter::close);
      List<FilterStoreException> sorted = new ArrayList<>(problems);
      sorted.sort(java.util.Comparator.comparing(e -> e.file().toString()));
      FilterStoreException first = sorted.get(0);
      List<Path> bad = sorted.stream().map(FilterStoreException::file).toList();
      String more =
          bad.size() == 1
              ? ""
              : " (and "
                  + (bad.size() - 1)
                  + " more bad filter file(s): "
                  + bad.subList(1, Math.min(bad.size(), 6)).stream()
                      .map(p -> p.getFileName().toString())
                      .toList()
                  + ")";
      FilterStoreException e =
          new FilterStoreException(
              first.file(),
              bad,
              first.getMessage().substring(first.file().toString().length() + 2)
                  + more
                  + "; the store is refused: rebuild it (FilterBuilder.ensureBuilt / the ingest"
                  + " command)",
              first);
      sorted.stream().skip(1).forEach(e::addSuppressed);
      throw e;
    }
    return new FilterStore(
        dir,
        m,
        slots[0],
        slots[1],
        List.of(slots).subList(2, slots.length),
        summaryPrint,
        blocksPrint);
  }

  private static FileFingerprint fingerprint(Path file) throws FilterStoreException {
    try {
      return FileFingerprint.of(file);
    } catch (java.io.IOException e) {
      throw new FilterStoreException(file, "filter file is missing or unreadable: " + e, e);
    }
  }

  /**
   * What the manifest says a filter file must be: exactly {@code keys} keys, or, encoded as {@code
   * -(n + 1)}, at least n (the summary, whose header count may be an upper bound).
   */
  private record Check(String name, int headerCrc, FilterKind kind, int blockFile, long keys) {
    LoadedFilter load(Path dir, long salt) throws FilterStoreException {
      Path file = dir.resolve(name);
      LoadedFilter l = ExpectedFilterFile.load(file, headerCrc);
      String problem = null;
      FilterMetadata meta = l.metadata();
      if (meta.kind() != kind) {
        problem =
            "holds filter kind "
                + meta.kind().label()
                + ", the manifest lists it as kind "
                + kind.label();
      } else if (meta.blockFile() != blockFile) {
        problem =
            "is the filter of block file "
                + meta.blockFile()
                + ", the manifest lists it for "
                + blockFile;
      } else if (keys >= 0 && l.filter().count() != keys) {
        problem = "holds " + l.filter().count() + " keys, the manifest says " + keys;
      } else if (keys < 0 && l.filter().count() < -keys - 1) {
        // an updated summary's header count is an upper bound of the manifest's exact one
        problem = "holds " + l.filter().count() + " keys, fewer than the manifest's " + (-keys - 1);
      } else if (l.filter().salt() != salt) {
        problem = "uses another salt than the manifest";
      }
      if (problem != null) {
        l.close();
        throw new FilterStoreException(file, "filter file " + problem);
      }
      return l;
    }
  }

  /**
   * Whether {@code keys[offset .. offset+32)} (a txid, internal order) may be on chain: one cache
   * line, through the filter's own kernel (the SIMD one measured 2.5-3x faster than the scalar one
   * for single keys in this store's k = 8, lw = 64 shape: FilterBenchmark.positive/negative with -p
   * type=BBF_SIMD_LW64 vs BBF_SCALAR in `./bbf-index bench filters`; docs/benchmarks.md).
   */
  public boolean mightContainTx(byte[] keys, int offset) {
    boolean maybe;
    try {
      maybe = summary.filter().mightContain(keys, offset);
    } catch (InternalError e) {
      throw faulted(summaryPrint, e);
    }
    if (!maybe) {
      requireUnchanged(summaryPrint);
    }
    return maybe;
  }

  /**
   * The JVM reports a fault in a mapped file (SIGBUS: a page past a truncation) as an {@link
   * InternalError} at the read.
   */
  private FilterStoreFaultException faulted(FileFingerprint f, InternalError e) {
    String why = "faulted when read (truncated under the mapping?): " + e.getMessage();
    voided = f.path() + ": " + why;
    return new FilterStoreFaultException(f.path(), why, e);
  }

  /**
   * Throws unless the file is still the one verified: a "no" read from a changed file may be a
   * false negative. One stat per negative answer (per batch for batches).
   */
  private void requireUnchanged(FileFingerprint f) {
    String earlier = voided;
    if (earlier != null) {
      throw new FilterStoreFaultException(f.path(), "the store is void: " + earlier, null);
    }
    String change = f.change();
    if (change != null) {
      String why = "changed since it was verified (" + change + "); its answers are void";
      voided = f.path() + ": " + why;
      throw new FilterStoreFaultException(f.path(), why, null);
    }
  }

  /**
   * {@link #mightContainTx} for {@code count} consecutive 32-byte txids, as a bitmap: bit {@code i
   * % 64} of {@code maybe[i / 64]} is txid i's answer ({@link
   * io.bbfindex.filters.MembershipFilter#mightContainBatch(byte[], int, long[])}).
   *
   * @return how many of the txids may be on chain
   */
  public int mightContainTxBatch(byte[] keys, int count, long[] maybe) {
    int maybes;
    try {
      maybes = summary.filter().mightContainBatch(keys, count, maybe);
    } catch (InternalError e) {
      throw faulted(summaryPrint, e);
    }
    if (maybes < count) {
      requireUnchanged(summaryPrint);
    }
    return maybes;
  }

  /** Whether a block hash (internal order) may be in the block index. */
  public boolean mightContainBlock(byte[] keys, int offset) {
    boolean maybe;
    try {
      maybe = blocks.filter().mightContain(keys, offset);
    } catch (InternalError e) {
      throw faulted(blocksPrint, e);
    }
    if (!maybe) {
      requireUnchanged(blocksPrint);
    }
    return maybe;
  }

  /**
   * Block files whose own filter says "maybe" for this txid (one probe per block file); empty when
   * the store has no per-file filters.
   */
  public List<Integer> candidateFiles(byte[] keys, int offset) {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < perFile.size(); i++) {
      if (perFile.get(i).filter().mightContain(keys, offset)) {
        out.add(perFileEntries.get(i).file());
      }
    }
    return out;
  }

  /** How many filter files the store mapped: summary, block hashes and any per-file filters. */
  public int filterCount() {
    return perFile.size() + 2;
  }

  /** The summary filter itself (read-only, valid until {@link #close}). */
  public BlockedBloomFilter summaryFilter() {
    return summary.filter();
  }

  /** The filter of block file {@code file}, if the store has one (only with per-file filters). */
  public java.util.Optional<BlockedBloomFilter> fileFilter(int file) {
    for (int i = 0; i < perFileEntries.size(); i++) {
      if (perFileEntries.get(i).file() == file) {
        return java.util.Optional.of(perFile.get(i).filter());
      }
    }
    return java.util.Optional.empty();
  }

  /**
   * Every filter: summary, block hashes, then per file in file order (those that have a file). Key
   * counts are the manifest's exact ones; the fill ratio is computed on first call (a popcount of
   * the bits).
   */
  public List<FilterInfo> filters() {
    List<FilterInfo> out = new ArrayList<>(perFile.size() + 2);
    out.addAll(lookupFilters());
    for (int i = 0; i < perFile.size(); i++) {
      FileEntry e = perFileEntries.get(i);
      out.add(info(perFile.get(i), FilterKind.TX_BLOCK_FILE, e.file(), e.keys()));
    }
    return out;
  }

  /**
   * The two filters that answer lookups, the summary and the block-hash filter, without the
   * per-file ones: describing 5,600 per-file filters (a popcount and an eq. 3 sum each) takes about
   * a second, which start-up should not pay for gauges that only cover these two.
   */
  public List<FilterInfo> lookupFilters() {
    return List.of(
        info(summary, FilterKind.TX_SUMMARY, -1, manifest.summary().keys()),
        info(blocks, FilterKind.BLOCK_HASHES, -1, manifest.blocks().keys()));
  }

  private FilterInfo info(LoadedFilter l, FilterKind kind, int blockFile, long keys) {
    BlockedBloomFilter f = l.filter();
    String name = l.path().getFileName().toString();
    double fill = fillRatios.computeIfAbsent(name, n -> f.fillRatio());
    return new FilterInfo(
        name,
        kind,
        blockFile,
        keys,
        f.bitSize(),
        f.geometry().k(),
        f.geometry().wordBits(),
        fill,
        io.bbfindex.filters.BbfSizing.modelFpr(keys, f.geometry()));
  }

  public Manifest manifest() {
    return manifest;
  }

  /** The store's directory. */
  public Path dir() {
    return dir;
  }

  /** Unmaps every filter. Idempotent. Lookups afterwards throw IllegalStateException. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    summary.close();
    blocks.close();
    perFile.forEach(LoadedFilter::close);
  }
}
