package io.bbfindex.ingest.leveldb;

import static org.fusesource.leveldbjni.JniDBFactory.factory;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.regex.Pattern;
import org.iq80.leveldb.CompressionType;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.DBIterator;
import org.iq80.leveldb.Options;
import org.iq80.leveldb.ReadOptions;

/**
 * A private, disposable copy of one of Bitcoin Core's LevelDB directories, opened with
 * leveldbjni-all 1.8.
 *
 * <p>Why a copy: LevelDB has no read-only mode (opening replays the {@code .log} write-ahead log
 * into a new table, writes a new MANIFEST and may compact), and the node holds an fcntl lock on its
 * {@code LOCK}. The node's directory is therefore never opened, only listed and read:
 *
 * <ul>
 *   <li>table files are immutable once written, so they are hard-linked (copied when the work
 *       directory is on another filesystem or linking is refused). Core's LevelDB (>= 1.14) names
 *       them {@code NNNNNN.ldb}; LevelDB 1.8 inside leveldbjni only looks for {@code NNNNNN.sst}
 *       and would report them missing, so they are linked under the {@code .sst} name. Opening
 *       never writes to a table, and deleting one in the snapshot only removes our link.
 *   <li>{@code CURRENT}, {@code MANIFEST-*} and {@code *.log} are rewritten by LevelDB, so they are
 *       copied (small).
 *   <li>{@code LOCK}, {@code LOG}, {@code LOG.old} are left behind.
 * </ul>
 *
 * <p>Known cost: LevelDB 1.8 still has seek-triggered compaction (Core's fork disabled it), so a
 * long run of random lookups can make it rewrite some linked tables into new files of the work
 * directory. {@code DB.suspendCompactions()} is deliberately not used against that: LevelDB's POSIX
 * Env has ONE background thread for every DB of the process, and parking it for one snapshot stalls
 * the compactions of all others and hangs their close (measured: a second snapshot's open never
 * returned).
 */
public final class LevelDbSnapshot implements AutoCloseable {

  private static final Pattern TABLE = Pattern.compile("\\d+\\.(ldb|sst)");
  private static final Pattern REWRITTEN = Pattern.compile("CURRENT|MANIFEST-\\d+|\\d+\\.log");

  private final Path source;
  private final Path dir;
  private final DB db;
  private final ReadOptions readOptions;

  private LevelDbSnapshot(Path source, Path dir, DB db) {
    this.source = source;
    this.dir = dir;
    this.db = db;
    // Core reads with checksum verification; a flipped bit must surface as an error, not data.
    this.readOptions = new ReadOptions().verifyChecksums(true).fillCache(true);
  }

  /**
   * Copies {@code source} into the new directory {@code snapshotDir} and opens the copy.
   *
   * @throws LevelDbOpenException if {@code source} is not a LevelDB (no CURRENT or no MANIFEST it
   *     names) or LevelDB refuses the copy; the message names {@code source}
   * @throws IOException if copying fails
   */
  public static LevelDbSnapshot open(Path source, Path snapshotDir) throws IOException {
    Path current = source.resolve("CURRENT");
    if (!Files.isRegularFile(current)) {
      throw new LevelDbOpenException(source, "not a LevelDB directory (no CURRENT file)");
    }
    String manifest = Files.readString(current).strip();
    if (!manifest.matches("MANIFEST-\\d+") || !Files.isRegularFile(source.resolve(manifest))) {
      throw new LevelDbOpenException(
          source, "CURRENT names '" + manifest + "', which is not a MANIFEST file here");
    }
    Files.createDirectories(snapshotDir);
    try (DirectoryStream<Path> files = Files.newDirectoryStream(source)) {
      for (Path f : files) {
        String name = f.getFileName().toString();
        if (TABLE.matcher(name).matches()) {
          linkOrCopy(f, snapshotDir.resolve(name.substring(0, name.length() - 4) + ".sst"));
        } else if (REWRITTEN.matcher(name).matches()) {
          Files.copy(f, snapshotDir.resolve(name), StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
    Options options =
        new Options()
            .createIfMissing(false)
            .paranoidChecks(true)
            .compressionType(CompressionType.NONE)
            .cacheSize(8L << 20);
    try {
      return new LevelDbSnapshot(source, snapshotDir, factory.open(snapshotDir.toFile(), options));
    } catch (IOException | RuntimeException e) {
      // leveldbjni reports "Corruption: ..." / "IO error: ..." as NativeDB.DBException (runtime)
      throw new LevelDbOpenException(
          source, "LevelDB could not open a copy of it: " + e.getMessage(), e);
    }
  }

  private static void linkOrCopy(Path from, Path to) throws IOException {
    try {
      Files.createLink(to, from);
    } catch (FileAlreadyExistsException e) {
      // both NNNNNN.ldb and NNNNNN.sst: LevelDB never produces that, refuse rather than guess
      throw new LevelDbOpenException(
          from.getParent(), "holds both " + to.getFileName() + " and its .ldb twin", e);
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
   * @throws LevelDbReadException if LevelDB fails (e.g. a checksum mismatch)
   */
  public byte[] get(byte[] key) throws LevelDbReadException {
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
  public void scan(byte[] from, byte[] toExclusive, EntryVisitor visitor) throws IOException {
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
    db.close();
  }
}
