package io.bbfindex.ingest.leveldb;

import static org.fusesource.leveldbjni.JniDBFactory.factory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;
import org.iq80.leveldb.CompressionType;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.DBIterator;
import org.iq80.leveldb.Options;
import org.iq80.leveldb.ReadOptions;
import org.jspecify.annotations.Nullable;

/**
 * A private, disposable copy of one of Bitcoin Core's LevelDB directories, opened with
 * leveldbjni-all 1.8.
 *
 * <p>Why a copy: LevelDB has no read-only mode (opening replays the {@code .log} write-ahead log
 * into a new table, writes a new MANIFEST and may compact), and the node holds an fcntl lock on its
 * {@code LOCK}. The node's directory is therefore never opened, only listed and read.
 *
 * <p>The copy is driven by the MANIFEST, so that it is consistent even while the node writes
 * (compactions deleting tables, appends to the log and the MANIFEST):
 *
 * <ul>
 *   <li>the MANIFEST named by {@code CURRENT} is read once and cut after its last intact record
 *       ({@link LevelDbLog}); replaying its VersionEdits ({@link ManifestReplay}) gives the live
 *       tables and the logs still to replay. Only those are taken: a table a compaction is still
 *       writing, or has made obsolete, is never touched.
 *   <li>live tables are immutable, so they are hard-linked (copied when the work directory is on
 *       another filesystem or linking is refused). Core's LevelDB (>= 1.14) names them {@code
 *       NNNNNN.ldb}; LevelDB 1.8 inside leveldbjni only looks for {@code NNNNNN.sst}, so they are
 *       linked under the {@code .sst} name. A live table missing means a compaction replaced it
 *       after the MANIFEST was read: {@link NoSuchFileException}, and the caller starts over.
 *   <li>logs are still being appended to, so they are copied (never linked: LevelDB maps what it
 *       reads, and a file changing under a mapping can crash the JVM with SIGBUS) and cut after
 *       their last intact record, as is the MANIFEST: LevelDB with paranoid checks refuses a torn
 *       record. A log the MANIFEST needs that has vanished, while the MANIFEST moved on, means the
 *       node flushed it into a table this copy does not know: {@link NoSuchFileException} too.
 *   <li>{@code LOCK}, {@code LOG}, {@code LOG.old} are left behind.
 * </ul>
 *
 * <p>Before leveldbjni opens the copy, the live tables are memory-mapped ({@link TableFilters}):
 * their Bloom filter blocks, which Core writes ({@code NewBloomFilterPolicy(10)}) and leveldbjni
 * 1.8 cannot read, answer most gets of an absent key in Java ({@link #get}).
 *
 * <p>Known cost: LevelDB 1.8 still has seek-triggered compaction (Core's fork disabled it), so a
 * long run of random lookups can make it rewrite some linked tables into new files of the work
 * directory. {@code DB.suspendCompactions()} is deliberately not used against that: LevelDB's POSIX
 * Env has ONE background thread for every DB of the process, and parking it for one snapshot stalls
 * the compactions of all others and hangs their close (measured: a second snapshot's open never
 * returned).
 */
public final class LevelDbSnapshot implements AutoCloseable {

  private static final Pattern LOG_FILE = Pattern.compile("\\d+\\.log");

  private final Path source;
  private final Path dir;
  private final DB db;
  private final ReadOptions readOptions;
  private final byte[] contentDigest;
  private final TableFilters filters;
  private final LongAdder refuted = new LongAdder();

  private LevelDbSnapshot(
      Path source, Path dir, DB db, byte[] contentDigest, TableFilters filters) {
    this.source = source;
    this.dir = dir;
    this.db = db;
    this.contentDigest = contentDigest;
    this.filters = filters;
    // Core reads with checksum verification; a flipped bit must surface as an error, not data.
    this.readOptions = new ReadOptions().verifyChecksums(true).fillCache(true);
  }

  /**
   * Copies {@code source} into the new directory {@code snapshotDir} (its parent must exist) and
   * opens the copy.
   *
   * @throws LevelDbOpenException if {@code source} is not a LevelDB (no CURRENT or no MANIFEST it
   *     names) or LevelDB refuses the copy; the message names {@code source}
   * @throws IOException if copying fails
   */
  public static LevelDbSnapshot open(Path source, Path snapshotDir) throws IOException {
    String manifest = currentManifest(source);
    if (!Files.isDirectory(snapshotDir)) {
      // never its parents: a shutdown hook may have just deleted them, and must stay able to
      Files.createDirectory(snapshotDir);
    }
    Plan plan = Plan.of(source, manifest);
    plan.copyInto(source, snapshotDir);
    byte[] digest = plan.digest();
    // before LevelDB opens the copy: its open may replay the logs and compact, deleting tables
    TableFilters filters = TableFilters.open(snapshotDir, plan.live(), plan.logs().values());
    Options options =
        new Options()
            .createIfMissing(false)
            .paranoidChecks(true)
            .compressionType(CompressionType.NONE)
            .cacheSize(8L << 20);
    try {
      LevelDbSnapshot opened =
          new LevelDbSnapshot(
              source, snapshotDir, factory.open(snapshotDir.toFile(), options), digest, filters);
      opened.firstNativeCalls();
      return opened;
    } catch (IOException | RuntimeException e) {
      filters.close();
      // leveldbjni reports "Corruption: ..." / "IO error: ..." as NativeDB.DBException (runtime)
      throw new LevelDbOpenException(
          source, "LevelDB could not open a copy of it: " + e.getMessage(), e);
    }
  }

  /**
   * One get and one iterator seek on this thread, before any caller can make them from several
   * threads at once. WHY: leveldbjni's JNI glue (hawtjni) fills its per-struct caches of Java field
   * ids (the read options' {@code snapshot} field, the key slices) at the first call, without
   * synchronisation; two threads making their first call together (the block index scan's parallel
   * parts, now that the tables' Bloom filters answer the gets that used to come first) can read a
   * half-filled cache: a garbage snapshot pointer and a SIGSEGV in {@code DBImpl::NewIterator}
   * (seen once in CI). A failure here is left to the real read, which reports it as it always did.
   */
  private void firstNativeCalls() {
    byte[] key = {0};
    try {
      db.get(key, readOptions);
      try (DBIterator it = db.iterator(readOptions)) {
        it.seek(key);
        if (it.hasNext()) {
          it.peekNext();
        }
      }
    } catch (IOException | RuntimeException e) {
      // not this method's to report: the same read fails again where it is wanted
    }
  }

  /**
   * The {@link #contentDigest} a snapshot of {@code source} taken now would have, without copying
   * anything: the MANIFEST and the logs are read, the tables only listed. WHY: to learn cheaply
   * whether the node's database changed since a snapshot.
   *
   * @throws LevelDbOpenException if {@code source} is not a LevelDB
   * @throws NoSuchFileException if the node changed the files meanwhile (ask again)
   */
  public static byte[] contentDigestOf(Path source) throws IOException {
    return Plan.of(source, currentManifest(source)).digest();
  }

  /** The MANIFEST that {@code source}'s CURRENT names. */
  private static String currentManifest(Path source) throws IOException {
    Path current = source.resolve("CURRENT");
    if (!Files.isRegularFile(current)) {
      throw new LevelDbOpenException(source, "not a LevelDB directory (no CURRENT file)");
    }
    String manifest = Files.readString(current).strip();
    if (!manifest.matches("MANIFEST-\\d+") || !Files.isRegularFile(source.resolve(manifest))) {
      throw new LevelDbOpenException(
          source, "CURRENT names '" + manifest + "', which is not a MANIFEST file here");
    }
    return manifest;
  }

  /**
   * What a snapshot takes, read from the node's directory: the MANIFEST (cut after its last intact
   * record), the live tables, the logs to replay (each cut likewise), and their digest.
   */
  private record Plan(
      String manifest,
      ManifestReplay.LiveFiles live,
      byte[] intactManifest,
      List<Path> tables,
      SortedMap<Long, byte[]> logs,
      byte[] digest) {

    /**
     * @throws NoSuchFileException if the node changed the files meanwhile (start over)
     */
    static Plan of(Path source, String manifest) throws IOException {
      Path manifestPath = source.resolve(manifest);
      byte[] manifestBytes = Files.readAllBytes(manifestPath);
      LevelDbLog.Contents edits = LevelDbLog.read(manifestBytes);
      ManifestReplay.LiveFiles live = ManifestReplay.replay(manifestPath, edits.records());
      byte[] intactManifest = Arrays.copyOf(manifestBytes, edits.intactLength());
      ContentDigest digest = new ContentDigest();
      digest.part(manifest.getBytes(StandardCharsets.US_ASCII)).part(intactManifest);
      List<Path> tables = new ArrayList<>();
      for (long table : live.tables()) {
        Path ldb = source.resolve(fileName(table, "ldb"));
        Path from = Files.exists(ldb) ? ldb : source.resolve(fileName(table, "sst"));
        digest.number(table).number(Files.size(from)); // NoSuchFileException: compacted away
        tables.add(from);
      }
      SortedMap<Long, byte[]> logs = new TreeMap<>();
      try (DirectoryStream<Path> files = Files.newDirectoryStream(source, "*.log")) {
        for (Path f : files) {
          String name = f.getFileName().toString();
          if (!LOG_FILE.matcher(name).matches()) {
            continue;
          }
          long number = Long.parseLong(name.substring(0, name.length() - 4));
          if (live.needsLog(number)) {
            byte[] log = Files.readAllBytes(f);
            logs.put(number, Arrays.copyOf(log, LevelDbLog.read(log).intactLength()));
          }
        }
      }
      if (!logs.containsKey(live.logNumber())
          && live.logNumber() != 0
          && manifestMovedOn(manifestPath, live)) {
        throw new NoSuchFileException(
            source.resolve(fileName(live.logNumber(), "log")).toString(),
            null,
            "flushed into a table after the MANIFEST was read");
      }
      logs.forEach((number, bytes) -> digest.number(number).part(bytes));
      return new Plan(manifest, live, intactManifest, tables, logs, digest.finish());
    }

    /**
     * Writes the snapshot into {@code snapshotDir}: the MANIFEST and CURRENT, the live tables, the
     * logs.
     *
     * @throws NoSuchFileException if a table was compacted away since it was listed (start over)
     */
    void copyInto(Path source, Path snapshotDir) throws IOException {
      Files.write(snapshotDir.resolve(manifest), intactManifest, StandardOpenOption.CREATE_NEW);
      Files.writeString(snapshotDir.resolve("CURRENT"), manifest + "\n");
      for (Path table : tables) {
        String name = table.getFileName().toString();
        String sst = name.substring(0, name.length() - 4) + ".sst";
        linkOrCopy(source, table, snapshotDir.resolve(sst));
      }
      for (Map.Entry<Long, byte[]> log : logs.entrySet()) {
        Files.write(
            snapshotDir.resolve(fileName(log.getKey(), "log")),
            log.getValue(),
            StandardOpenOption.CREATE_NEW);
      }
    }
  }

  /** Whether the MANIFEST now names other logs to replay than {@code read} does. */
  private static boolean manifestMovedOn(Path manifestPath, ManifestReplay.LiveFiles read)
      throws IOException {
    byte[] now = Files.readAllBytes(manifestPath);
    return ManifestReplay.replay(manifestPath, LevelDbLog.read(now).records()).logNumber()
        != read.logNumber();
  }

  private static String fileName(long number, String extension) {
    return String.format(Locale.ROOT, "%06d.%s", number, extension);
  }

  private static void linkOrCopy(Path dir, Path from, Path to) throws IOException {
    try {
      Files.createLink(to, from);
    } catch (FileAlreadyExistsException e) {
      // both NNNNNN.ldb and NNNNNN.sst: LevelDB never produces that, refuse rather than guess
      throw new LevelDbOpenException(
          dir, "holds both " + to.getFileName() + " and its .ldb twin", e);
    } catch (NoSuchFileException e) {
      throw e; // compacted away while we listed the directory
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      // other filesystem, or hard links to others' files refused (fs.protected_hardlinks)
      Files.copy(from, to);
    }
  }

  /**
   * Point lookup; {@code null} when the key is absent. The value is raw (not de-obfuscated).
   *
   * <p>A key the snapshot's own tables' Bloom filter blocks prove absent (Core writes them with
   * {@code NewBloomFilterPolicy(10)}; see {@link TableFilters}) is answered {@code null} without
   * LevelDB: ~99 % of absent keys, at a fraction of leveldbjni's get, which has no filter policy
   * and reads a data block for each. Counted by {@link #refutedGets}.
   *
   * @throws LevelDbReadException if LevelDB fails (e.g. a checksum mismatch)
   */
  public byte @Nullable [] get(byte[] key) throws LevelDbReadException {
    if (!filters.mayContain(key)) {
      refuted.increment();
      return null;
    }
    return getFromLevelDb(key);
  }

  /** {@link #get} without the filters: always leveldbjni's get (tests check refutations by it). */
  byte @Nullable [] getFromLevelDb(byte[] key) throws LevelDbReadException {
    try {
      return db.get(key, readOptions);
    } catch (RuntimeException e) {
      throw new LevelDbReadException(source, e);
    }
  }

  /**
   * Visits every entry with {@code from <= key < toExclusive} (LevelDB's unsigned byte order), in
   * key order, with the same read options as {@link #scan(byte, EntryVisitor)}. Separate calls may
   * run on separate threads at once (each has its own iterator), which is how a full scan is split
   * into key ranges.
   *
   * @param toExclusive the first key not visited, or null for the end of the database
   * @throws LevelDbReadException if LevelDB fails; exceptions of the visitor pass through
   */
  public void scan(byte[] from, byte @Nullable [] toExclusive, EntryVisitor visitor)
      throws IOException {
    try (DBIterator it = db.iterator(new ReadOptions().verifyChecksums(true).fillCache(false))) {
      for (it.seek(from); it.hasNext(); ) {
        Map.Entry<byte[], byte[]> e = it.next();
        byte[] key = e.getKey();
        if (toExclusive != null && java.util.Arrays.compareUnsigned(key, toExclusive) >= 0) {
          return;
        }
        visitor.visit(key, e.getValue());
      }
    } catch (RuntimeException e) {
      throw new LevelDbReadException(source, e);
    }
  }

  /** Receives entries from {@link #scan}. */
  @FunctionalInterface
  public interface EntryVisitor {
    void visit(byte[] key, byte[] value) throws IOException;
  }

  /**
   * Visits every entry whose key starts with {@code prefix}, in key order. Iteration follows Core's
   * options: checksums verified, the block cache left alone so that a full scan does not evict the
   * point-lookup working set.
   *
   * @throws LevelDbReadException if LevelDB fails; exceptions of the visitor pass through
   */
  public void scan(byte prefix, EntryVisitor visitor) throws IOException {
    try (DBIterator it = db.iterator(new ReadOptions().verifyChecksums(true).fillCache(false))) {
      for (it.seek(new byte[] {prefix}); it.hasNext(); ) {
        Map.Entry<byte[], byte[]> e = it.next();
        byte[] key = e.getKey();
        if (key.length == 0 || key[0] != prefix) {
          return;
        }
        visitor.visit(key, e.getValue());
      }
    } catch (RuntimeException e) {
      throw new LevelDbReadException(source, e);
    }
  }

  /**
   * SHA-256 of what this copy was made of: the MANIFEST (up to its last intact record), each live
   * table's number and size, each replayed log (up to its last intact record). Two snapshots with
   * the same digest hold the same records: tables are immutable and the MANIFEST names each with
   * its key range and size, and the logs are compared byte for byte. WHY: a reader may keep what it
   * decoded from a snapshot and, while the digest is unchanged, skip reading the database again.
   */
  public byte[] contentDigest() {
    return contentDigest.clone();
  }

  /** {@link #get}s answered "absent" by the tables' Bloom filters, without LevelDB. */
  public long refutedGets() {
    return refuted.sum();
  }

  /**
   * One line per live table of the snapshot: whether its Bloom filter block is trusted to refute
   * keys, and why not (checks every table not checked yet, so not for a hot path).
   */
  public List<String> filterVerdicts() {
    return filters.verdicts();
  }

  /** The node's directory this is a copy of. */
  public Path source() {
    return source;
  }

  /** Where the copy lives. */
  public Path dir() {
    return dir;
  }

  /** Closes the database (the snapshot directory is left for the owner to delete). */
  @Override
  public void close() throws IOException {
    try {
      db.close();
    } finally {
      filters.close();
    }
  }
}
