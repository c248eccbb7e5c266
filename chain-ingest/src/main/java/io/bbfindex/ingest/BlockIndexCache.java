package io.bbfindex.ingest;

import io.bbfindex.filters.io.AtomicFileWriter;
import io.bbfindex.ingest.records.DiskBlockIndex;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * The block index's decoded {@code 'b'} records, kept in the work directory between starts and
 * taken instead of a scan of the node's LevelDB while that database holds exactly what it held when
 * they were written.
 *
 * <p>WHY: at every start, scanning and decoding about 950,000 records on mainnet (LevelDB through
 * JNI, varints, a SHA-256d and a proof-of-work check per header) took about 1.5 s on two cores:
 * most of the time before {@code serve}'s first answer. A running node writes its block index only
 * when it flushes (about hourly, and at shutdown), so a restart usually finds it unchanged.
 *
 * <p>"Unchanged" is the snapshot's {@link io.bbfindex.ingest.leveldb.LevelDbSnapshot#contentDigest}
 * (the MANIFEST, the live tables' numbers and sizes, the logs byte for byte): any flush, compaction
 * or reindex changes it, and the records are then read from LevelDB and written here again. The
 * records were checked (hash, proof of work) when they were first decoded; here they are protected
 * by a CRC32C over the whole file, and a file that is short, long, of another version or fails its
 * CRC is ignored (read from LevelDB instead), never trusted.
 *
 * <p>Layout, little-endian:
 *
 * <pre>
 *   magic "BBFBIX01"            8 bytes
 *   digest of the snapshot     32 bytes  (SHA-256)
 *   record count n              4 bytes
 *   n records, 148 bytes each, in the block index's key order (ascending hash):
 *     hash 32 | header 80 | dummyVersion 4 | height 4 | status 4 | txCount 4 | file 4
 *     | dataPos 8 | undoPos 8
 *   CRC32C of all bytes above   4 bytes
 * </pre>
 */
final class BlockIndexCache {

  /** Its name in the work directory. */
  static final String FILE_NAME = "block-index.cache";

  private static final byte[] MAGIC = {'B', 'B', 'F', 'B', 'I', 'X', '0', '1'};
  private static final int DIGEST_BYTES = 32;
  private static final int HEAD_BYTES = MAGIC.length + DIGEST_BYTES + Integer.BYTES;
  static final int RECORD_BYTES = 32 + DiskBlockIndex.HEADER_BYTES + 5 * Integer.BYTES + 16;

  /** A partial cache this old is no write in progress (a write takes seconds). */
  static final Duration LEFTOVER_AGE = Duration.ofMinutes(10);

  private static final System.Logger LOG = System.getLogger(BlockIndexCache.class.getName());

  private final Path workDir;
  private final Path file;

  BlockIndexCache(Path workDir) {
    this.workDir = workDir;
    this.file = workDir.resolve(FILE_NAME);
  }

  Path workDir() {
    return workDir;
  }

  Path file() {
    return file;
  }

  /**
   * Deletes what writers killed mid-write left ({@link AtomicFileWriter}'s temporary files of the
   * cache, 140 MB each at mainnet) once older than {@link #LEFTOVER_AGE}: younger ones may be
   * another process's write in progress.
   */
  void removeLeftovers() {
    try (DirectoryStream<Path> tmps =
        Files.newDirectoryStream(workDir, "." + FILE_NAME + ".*.tmp")) {
      long now = System.currentTimeMillis();
      for (Path t : tmps) {
        if (now - Files.getLastModifiedTime(t).toMillis() > LEFTOVER_AGE.toMillis()) {
          Files.deleteIfExists(t);
        }
      }
    } catch (IOException e) {
      LOG.log(System.Logger.Level.WARNING, "could not remove old partial block index caches: " + e);
    }
  }

  /**
   * The records kept for a snapshot with {@code digest}, or empty when there are none for it (no
   * file, another digest, or a file that is not intact: each said in the log, none an error).
   */
  Optional<List<DiskBlockIndex>> read(byte[] digest) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException | OutOfMemoryError e) {
      LOG.log(System.Logger.Level.WARNING, file + " unreadable, reading the block index: " + e);
      return Optional.empty();
    }
    String problem = problem(bytes, digest);
    if (problem != null) {
      LOG.log(System.Logger.Level.INFO, file + " " + problem + ": reading the block index");
      return Optional.empty();
    }
    ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    int n = in.getInt(MAGIC.length + DIGEST_BYTES);
    List<DiskBlockIndex> records = new ArrayList<>(n);
    for (int i = 0, at = HEAD_BYTES; i < n; i++, at += RECORD_BYTES) {
      int fields = at + 32 + DiskBlockIndex.HEADER_BYTES;
      records.add(
          new DiskBlockIndex(
              Arrays.copyOfRange(bytes, at, at + 32),
              in.getInt(fields),
              in.getInt(fields + 4),
              in.getInt(fields + 8),
              in.getInt(fields + 12),
              in.getInt(fields + 16),
              in.getLong(fields + 20),
              in.getLong(fields + 28),
              Arrays.copyOfRange(bytes, at + 32, fields)));
    }
    return Optional.of(records);
  }

  /** Why {@code bytes} cannot be taken for {@code digest}, or null if they can. */
  private static @Nullable String problem(byte[] bytes, byte[] digest) {
    if (bytes.length < HEAD_BYTES + Integer.BYTES
        || !Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      return "is not a block index cache of this version";
    }
    if (!Arrays.equals(bytes, MAGIC.length, HEAD_BYTES - Integer.BYTES, digest, 0, DIGEST_BYTES)) {
      return "was written for another state of the node's block index";
    }
    ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    long n = Integer.toUnsignedLong(in.getInt(MAGIC.length + DIGEST_BYTES));
    if (bytes.length != HEAD_BYTES + n * RECORD_BYTES + Integer.BYTES) {
      return "has " + bytes.length + " bytes, not what its " + n + " records take";
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - Integer.BYTES);
    if ((int) crc.getValue() != in.getInt(bytes.length - Integer.BYTES)) {
      return "fails its CRC32C";
    }
    return null;
  }

  /**
   * Keeps {@code records} (in key order, as the scan gave them) for a snapshot with {@code digest},
   * replacing what was kept (atomically: a crash leaves the old file or the new one).
   */
  void write(byte[] digest, List<DiskBlockIndex> records) throws IOException {
    ByteBuffer out =
        ByteBuffer.allocate(
                Math.toIntExact(HEAD_BYTES + (long) records.size() * RECORD_BYTES + Integer.BYTES))
            .order(ByteOrder.LITTLE_ENDIAN);
    out.put(MAGIC).put(digest).putInt(records.size());
    for (DiskBlockIndex r : records) {
      out.put(r.hash())
          .put(r.header())
          .putInt(r.dummyVersion())
          .putInt(r.height())
          .putInt(r.status())
          .putInt(r.txCount())
          .putInt(r.file())
          .putLong(r.dataPos())
          .putLong(r.undoPos());
    }
    CRC32C crc = new CRC32C();
    crc.update(out.array(), 0, out.position());
    out.putInt((int) crc.getValue());
    AtomicFileWriter.write(file, out.array());
  }
}
