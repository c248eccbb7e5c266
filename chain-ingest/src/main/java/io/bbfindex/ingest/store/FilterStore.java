package io.bbfindex.ingest.store;

import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.filters.io.FilterKind;
import io.bbfindex.filters.io.FilterMetadata;
import io.bbfindex.filters.io.LoadedFilter;
import io.bbfindex.filters.io.MappedFilterFile;
import io.bbfindex.ingest.store.Manifest.FileEntry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

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

  /**
   * How long the mappings of a store opened {@linkplain #openMappedFirst mapped first} stay valid
   * after its copies answer, for lookups that were already reading them; they are freed then.
   */
  public static final java.time.Duration MAPPING_GRACE = java.time.Duration.ofSeconds(2);

  private final Path dir;
  private final Manifest manifest;
  private final ServedFilters served;

  /**
   * Where the copies of a store opened {@linkplain #openMappedFirst mapped first} are made, null
   * for one opened from copies: {@link #reopen} opens the same way.
   */
  private final @Nullable Executor copyOn;

  private final List<FileEntry> perFileEntries;
  private final Map<String, Double> fillRatios = new ConcurrentHashMap<>();

  /** The manifest and every filter file as they were when verified. */
  private final List<FileFingerprint> verified;

  private volatile boolean closed;

  private FilterStore(
      Path dir,
      Manifest manifest,
      ServedFilters served,
      List<FileFingerprint> verified,
      @Nullable Executor copyOn) {
    this.copyOn = copyOn;
    this.verified = List.copyOf(verified);
    this.dir = dir;
    this.manifest = manifest;
    this.served = served;
    this.perFileEntries = manifest.files().stream().filter(FileEntry::hasFilterFile).toList();
  }

  /**
   * Opens the store in {@code dir}.
   *
   * @throws FilterStoreException naming the manifest or the (first) bad filter file; {@link
   *     FilterStoreException#badFiles()} lists every bad file
   */
  public static FilterStore open(Path dir) throws FilterStoreException {
    return open(dir, (Executor) null);
  }

  /**
   * Opens the store in {@code dir} as {@link #open} checks it, but answers from the verified
   * mappings of its files while their in-memory copies are made behind them ({@link
   * ServedFilters}): ready in the time the checksums of files in the page cache take (about half a
   * second for a mainnet summary) rather than the time fresh memory takes to fill (1-5 s on this
   * machine). Until the copies are in ({@link #awaitCopies}), every answer is confirmed by a stat
   * of the files it probed, and a lookup whose file changed gets a {@link
   * FilterStoreChangedException} instead of an answer. The copies are made on a thread of the
   * lowest scheduling priority ({@link BackgroundCopyThread}), which yields to the server's start
   * and lookups.
   *
   * @throws FilterStoreException as {@link #open}
   */
  public static FilterStore openMappedFirst(Path dir) throws FilterStoreException {
    return openMappedFirst(dir, BackgroundCopyThread.EXECUTOR);
  }

  /**
   * As {@link #openMappedFirst(Path)}, the copies made by a task handed to {@code copyOn} (e.g. to
   * start them only once the server listens, or to hold them back in a test).
   *
   * @throws FilterStoreException as {@link #open}
   */
  public static FilterStore openMappedFirst(Path dir, Executor copyOn) throws FilterStoreException {
    return open(dir, Objects.requireNonNull(copyOn, "copyOn"));
  }

  /**
   * Where a store opened mapped first makes its copies once {@code gate} has completed, at the
   * lowest priority as by default ({@link BackgroundCopyThread}); never if it completes
   * exceptionally or not at all (a start that failed: its store is closed unserved).
   *
   * <p>Why: {@code serve} opens the store while it reads the node's block index, and at mainnet
   * geometry the copy's 1.75 GiB of fresh memory competed with that read on a two-core machine,
   * nice 19 or not (the kernel backing fresh pages, and in a VM the host behind it, are not
   * scheduled by the thread's priority): started once the backend is ready, it costs the first
   * answer nothing, and the verified mappings answer until it is in.
   */
  public static Executor copiesAfter(CompletionStage<?> gate) {
    Objects.requireNonNull(gate, "gate");
    return task -> gate.thenRun(() -> BackgroundCopyThread.EXECUTOR.execute(task));
  }

  /** Opens from copies, or mapped first with the copies made on {@code copyOn} when not null. */
  private static FilterStore open(Path dir, @Nullable Executor copyOn) throws FilterStoreException {
    boolean mappedFirst = copyOn != null;
    Objects.requireNonNull(dir, "dir");
    // taken before anything is read, so that a change during verification is noticed too
    FileFingerprint manifestPrint = fingerprint(dir.resolve(ManifestFile.FILE_NAME));
    Manifest m = ManifestFile.read(dir);
    List<FilterStoreException> problems = Collections.synchronizedList(new ArrayList<>());
    List<Check> checks = checks(m);
    // LoadedFilter copies, or MappedFilterFile when mapped first
    AutoCloseable[] slots = new AutoCloseable[checks.size()];
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
                slots[i] =
                    mappedFirst
                        ? checks.get(i).map(dir, m.salt())
                        : checks.get(i).read(dir, m.salt());
              } catch (FilterStoreException e) {
                problems.add(e);
              }
            });
    if (!problems.isEmpty()) {
      closeAll(slots);
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
              first.problem()
                  + more
                  + "; the store is refused: rebuild it (FilterBuilder.ensureBuilt / the ingest"
                  + " command)",
              first);
      sorted.stream().skip(1).forEach(e::addSuppressed);
      throw e;
    }
    List<FileFingerprint> filePrints = List.of(prints).subList(0, slots.length);
    ServedFilters served =
        copyOn != null
            ? ServedFilters.mappedThenCopied(
                Stream.of(slots).map(MappedFilterFile.class::cast).toList(), filePrints, copyOn)
            : ServedFilters.ofCopies(
                Stream.of(slots).map(LoadedFilter.class::cast).toList(), filePrints);
    return new FilterStore(dir, m, served, List.of(prints), copyOn);
  }

  private static void closeAll(AutoCloseable[] slots) {
    for (AutoCloseable slot : slots) {
      if (slot instanceof LoadedFilter l) {
        l.close();
      } else if (slot instanceof MappedFilterFile f) {
        f.close();
      }
    }
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
   * The store in this store's directory as it is now, this one being closed (its filters handed
   * over or freed). A builder run that rebuilt nothing still writes a new manifest (its time stamp,
   * perhaps a later tip): when the manifest on disk lists the same filter files with the same
   * checks as the verified one, and none of those files changed since they were verified, their
   * verified filters (the copies, or the mappings whose copies are still being made) are carried
   * over instead of reading and checking every byte again (1.75 GiB of summary at mainnet scale,
   * about a second of start-up). Otherwise the store is opened afresh, the way this one was ({@link
   * #open} or {@link #openMappedFirst}), after this one's memory is freed.
   *
   * @throws FilterStoreException as {@link #open}
   */
  public synchronized FilterStore reopen() throws FilterStoreException {
    if (closed) {
      throw new IllegalStateException("filter store " + dir + " is closed");
    }
    FileFingerprint manifestPrint = fingerprint(dir.resolve(ManifestFile.FILE_NAME));
    // the usual start of serve: the build found nothing to rebuild and left the manifest as it was
    Manifest now = manifestUnchanged() ? manifest : ManifestFile.read(dir);
    boolean same =
        now.salt() == manifest.salt()
            && checks(now).equals(checks(manifest))
            && served.copyFailure() == null
            // every entry but the last (the manifest's own) is a filter file's
            && verified.subList(0, verified.size() - 1).stream().allMatch(f -> f.change() == null);
    if (!same) {
      close();
      return open(dir, copyOn);
    }
    List<FileFingerprint> prints = new ArrayList<>(verified.subList(0, verified.size() - 1));
    prints.add(manifestPrint);
    closed = true; // the filters now belong to the new store: this one must not free them
    return new FilterStore(dir, now, served, prints, copyOn);
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
    /** The file read into a verified copy, if it is what the manifest says. */
    LoadedFilter read(Path dir, long salt) throws FilterStoreException {
      LoadedFilter l = ExpectedFilterFile.read(dir.resolve(name), headerCrc);
      refuseUnlessListed(l, salt, l::close);
      return l;
    }

    /** The file mapped and verified, if it is what the manifest says. */
    MappedFilterFile map(Path dir, long salt) throws FilterStoreException {
      MappedFilterFile f = ExpectedFilterFile.map(dir.resolve(name), headerCrc);
      refuseUnlessListed(f.mapping(), salt, f::close);
      return f;
    }

    private void refuseUnlessListed(LoadedFilter l, long salt, Runnable release)
        throws FilterStoreException {
      Path file = l.path();
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
        release.run();
        throw new FilterStoreException(file, "filter file " + problem);
      }
    }
  }

  /**
   * Whether {@code keys[offset .. offset+32)} (a txid, internal order) may be on chain: one cache
   * line, through the filter's own kernel (the SIMD one measured 2.5-3x faster than the scalar one
   * for single keys in this store's k = 8, lw = 64 shape: FilterBenchmark.positive/negative with -p
   * type=BBF_SIMD_LW64 vs BBF_SCALAR in `./bbf-index bench filters`; docs/benchmarks.md).
   */
  public boolean mightContainTx(byte[] keys, int offset) {
    // here and in the other probes the stage test is written out rather than handed to
    // ServedFilters as a lambda: the copies' path, every lookup after the first seconds, then
    // captures and allocates nothing
    ServedFilters.Stage s = served.stage();
    return s.mapped()
        ? served.fromMappings(
            s,
            m -> m.summary().filter().mightContain(keys, offset),
            ServedFilters.SUMMARY,
            ServedFilters.SUMMARY + 1)
        : s.summary().filter().mightContain(keys, offset);
  }

  /**
   * What changed on disk since the store was verified, or empty while the manifest and every filter
   * file are still the files verified (same inode, size and modification time): one stat per file,
   * for a watcher off the hot path. A change never affects answers (they come from the verified
   * copies) but means the store on disk is no longer the one served: it should be verified again
   * (and rebuilt if bad).
   */
  public java.util.Optional<String> changedOnDisk() {
    String copyFailure = served.copyFailure();
    if (copyFailure != null) {
      return java.util.Optional.of(copyFailure);
    }
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
    ServedFilters.Stage s = served.stage();
    return s.mapped()
        ? served.fromMappings(
            s,
            m -> m.summary().filter().mightContainBatch(keys, count, maybe),
            ServedFilters.SUMMARY,
            ServedFilters.SUMMARY + 1)
        : s.summary().filter().mightContainBatch(keys, count, maybe);
  }

  /** Whether a block hash (internal order) may be in the block index. */
  public boolean mightContainBlock(byte[] keys, int offset) {
    ServedFilters.Stage s = served.stage();
    return s.mapped()
        ? served.fromMappings(
            s,
            m -> m.blocks().filter().mightContain(keys, offset),
            ServedFilters.BLOCKS,
            ServedFilters.BLOCKS + 1)
        : s.blocks().filter().mightContain(keys, offset);
  }

  /**
   * Block files whose own filter says "maybe" for this txid (one probe per block file); empty when
   * the store has no per-file filters.
   */
  public List<Integer> candidateFiles(byte[] keys, int offset) {
    ServedFilters.Stage s = served.stage();
    return s.mapped()
        ? served.fromMappings(
            s, m -> candidateFiles(m, keys, offset), ServedFilters.FIRST_FILE, s.slots().size())
        : candidateFiles(s, keys, offset);
  }

  private List<Integer> candidateFiles(ServedFilters.Stage s, byte[] keys, int offset) {
    List<LoadedFilter> perFile = s.perFile();
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
    return served.stage().slots().size();
  }

  /**
   * Whether the store answers from its verified in-memory copies, waiting up to {@code timeout} for
   * them (a store opened {@linkplain #openMappedFirst mapped first} answers from its mappings until
   * then; one opened with {@link #open} always does).
   *
   * @return false if the copies are not in after {@code timeout}, or could not be made (then {@link
   *     #changedOnDisk} says why)
   */
  public boolean awaitCopies(java.time.Duration timeout) throws InterruptedException {
    return served.awaitCopies(timeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
  }

  /**
   * The summary filter itself (read-only, valid until {@link #close}): the verified copy, or while
   * a store opened mapped first has none yet, the verified mapping, which is only trustworthy while
   * {@link #changedOnDisk} is empty.
   */
  public BlockedBloomFilter summaryFilter() {
    return served.stage().summary().filter();
  }

  /** The filter of block file {@code file}, if the store has one (only with per-file filters). */
  public java.util.Optional<BlockedBloomFilter> fileFilter(int file) {
    for (int i = 0; i < perFileEntries.size(); i++) {
      if (perFileEntries.get(i).file() == file) {
        return java.util.Optional.of(served.stage().perFile().get(i).filter());
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
    List<LoadedFilter> perFile = served.stage().perFile();
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
    ServedFilters.Stage s = served.stage();
    return List.of(
        info(s.summary(), FilterKind.TX_SUMMARY, -1, manifest.summary().keys()),
        info(s.blocks(), FilterKind.BLOCK_HASHES, -1, manifest.blocks().keys()));
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

  /**
   * Whether the manifest file is still the very file {@link #manifest()} was parsed from (same
   * inode, size and modification time), not one renamed over it since: a caller that would read it
   * again to compare (the build, {@link #reopen}) can take {@link #manifest()} instead. At mainnet
   * geometry a parse is a line per block file, about 0.57 MB, on the way to serve's first answer.
   */
  public boolean manifestUnchanged() {
    return verified.get(verified.size() - 1).unchanged();
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
    served.close();
  }
}
