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
 * A filter store opened for serving: the manifest and every filter file, validated and read into
 * memory (a verified copy of each filter's bits, off-heap).
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
 * BuildOptions.fileFilters} on, and then validated and read here like the others. A store without
 * them holds nothing but the summary and the block-hash filter. Thread-safe for lookups; {@link
 * #close} frees everything.
 *
 * <p><b>Answers come from the verified copies, never from the files</b> ({@code FilterFile.read}):
 * a filter file truncated or rewritten under a live server cannot change an answer (a mapping would
 * read zeros past a truncation, or fault, or answer from the new bits), so the hot path needs no
 * check of the files. Whether the files on disk are still the ones verified is a separate, slower
 * question ({@link #changedOnDisk}, a stat of each file), which the server asks off the hot path to
 * re-verify a store that changed.
 */
public final class FilterStore implements AutoCloseable {

  private final Path dir;
  private final Manifest manifest;
  private final LoadedFilter summary;
  private final LoadedFilter blocks;
  private final List<LoadedFilter> perFile;
  private final List<FileEntry> perFileEntries;
  private final Map<String, Double> fillRatios = new ConcurrentHashMap<>();

  /** The manifest and every filter file as they were when verified. */
  private final List<FileFingerprint> verified;

  private volatile boolean closed;

  private FilterStore(
      Path dir,
      Manifest manifest,
      LoadedFilter summary,
      LoadedFilter blocks,
      List<LoadedFilter> perFile,
      List<FileFingerprint> verified) {
    this.verified = List.copyOf(verified);
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
    // taken before anything is read, so that a change during verification is noticed too
    FileFingerprint manifestPrint = fingerprint(dir.resolve(ManifestFile.FILE_NAME));
    Manifest m = ManifestFile.read(dir);
    List<LoadedFilter> loaded = Collections.synchronizedList(new ArrayList<>());
    List<FilterStoreException> problems = Collections.synchronizedList(new ArrayList<>());
    List<Check> checks = checks(m);
    LoadedFilter[] slots = new LoadedFilter[checks.size()];
    FileFingerprint[] prints = new FileFingerprint[checks.size() + 1];
    prints[checks.size()] = manifestPrint;
    // reading and CRC32C of every byte dominate opening a large store: spread over the cores
    java.util.stream.IntStream.range(0, checks.size())
        .parallel()
        .forEach(
            i -> {
              try {
                Path file = dir.resolve(checks.get(i).name());
                prints[i] = fingerprint(file);
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
        dir, m, slots[0], slots[1], List.of(slots).subList(2, slots.length), List.of(prints));
  }

  /**
   * The filter files {@code m} lists, in slot order: the summary, the block-hash filter, then the
   * per-file filters that have a file.
   */
  private static List<Check> checks(Manifest m) {
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
    return checks;
  }

  /**
   * The store in this store's directory as it is now, this one being closed (its copies handed over
   * or freed). A builder run that rebuilt nothing still writes a new manifest (its time stamp,
   * perhaps a later tip): when the manifest on disk lists the same filter files with the same
   * checks as the verified one, and none of those files changed since they were verified, their
   * verified copies are carried over instead of reading and checking every byte again (1.75 GiB of
   * summary at mainnet scale, about a second of start-up). Otherwise the store is opened afresh
   * ({@link #open}), after this one's memory is freed.
   *
   * @throws FilterStoreException as {@link #open}
   */
  public synchronized FilterStore reopen() throws FilterStoreException {
    if (closed) {
      throw new IllegalStateException("filter store " + dir + " is closed");
    }
    FileFingerprint manifestPrint = fingerprint(dir.resolve(ManifestFile.FILE_NAME));
    Manifest now = ManifestFile.read(dir);
    boolean same =
        now.salt() == manifest.salt()
            && checks(now).equals(checks(manifest))
            // every entry but the last (the manifest's own) is a filter file's
            && verified.subList(0, verified.size() - 1).stream().allMatch(f -> f.change() == null);
    if (!same) {
      close();
      return open(dir);
    }
    List<FileFingerprint> prints = new ArrayList<>(verified.subList(0, verified.size() - 1));
    prints.add(manifestPrint);
    closed = true; // the copies now belong to the new store: this one must not free them
    return new FilterStore(dir, now, summary, blocks, perFile, prints);
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
      LoadedFilter l = ExpectedFilterFile.read(file, headerCrc);
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
    return summary.filter().mightContain(keys, offset);
  }

  /**
   * What changed on disk since the store was verified, or empty while the manifest and every filter
   * file are still the files verified (same inode, size and modification time): one stat per file,
   * for a watcher off the hot path. A change never affects answers (they come from the verified
   * copies) but means the store on disk is no longer the one served: it should be verified again
   * (and rebuilt if bad).
   */
  public java.util.Optional<String> changedOnDisk() {
    for (FileFingerprint f : verified) {
      String change = f.change();
      if (change != null) {
        return java.util.Optional.of(f.path().getFileName() + ": " + change);
      }
    }
    return java.util.Optional.empty();
  }

  /**
   * {@link #mightContainTx} for {@code count} consecutive 32-byte txids, as a bitmap: bit {@code i
   * % 64} of {@code maybe[i / 64]} is txid i's answer ({@link
   * io.bbfindex.filters.MembershipFilter#mightContainBatch(byte[], int, long[])}).
   *
   * @return how many of the txids may be on chain
   */
  public int mightContainTxBatch(byte[] keys, int count, long[] maybe) {
    return summary.filter().mightContainBatch(keys, count, maybe);
  }

  /** Whether a block hash (internal order) may be in the block index. */
  public boolean mightContainBlock(byte[] keys, int offset) {
    return blocks.filter().mightContain(keys, offset);
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

  /** How many filter files the store holds: summary, block hashes and any per-file filters. */
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
    // counted by the pass that read the bits: describing the summary costs no second pass
    double fill =
        fillRatios.computeIfAbsent(
            name,
            n ->
                l.bitCount() == LoadedFilter.NOT_COUNTED
                    ? f.fillRatio()
                    : (double) l.bitCount() / f.bitSize());
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

  /** Frees every filter. Idempotent. Lookups afterwards throw IllegalStateException. */
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
