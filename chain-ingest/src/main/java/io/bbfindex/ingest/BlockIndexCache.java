package io.bbfindex.ingest;

import io.bbfindex.filters.io.AtomicFileWriter;
import io.bbfindex.ingest.chain.ActiveChain;
import io.bbfindex.ingest.records.BlockTable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
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
 * <p>With the records, the {@link ActiveChain} computed from them (a pure function of the records,
 * so of the digest): a warm start takes it as kept instead of ordering every row by height and
 * walking the work again (about 40 % of the open on mainnet). It is checked as it is read ({@link
 * ActiveChain#ofCachedRows}); a chain that fails the checks makes the whole file refused.
 *
 * <p>Layout, little-endian, the records as columns ({@link BlockTable#write}) so that a read is a
 * few bulk copies into the table's arrays, not a record object per block:
 *
 * <pre>
 *   magic "BBFBIX03"            8 bytes
 *   digest of the snapshot     32 bytes  (SHA-256)
 *   record count n              4 bytes
 *   n records, 148 bytes each, in the block index's key order (ascending hash), by column:
 *     n hashes (32) | n headers (80) | n dummyVersions (4) | n heights (4) | n statuses (4)
 *     | n txCounts (4) | n files (4) | n dataPos (8) | n undoPos (8)
 *   active chain length m       4 bytes  (its tip's height + 1, at least 1)
 *   m rows, 4 bytes each        the record (0..n-1) of the active block at each height
 *   tip work length w           4 bytes
 *   tip work                    w bytes  (the chain's total work: BigInteger#toByteArray)
 *   CRC32C of all bytes above   4 bytes
 * </pre>
 *
 * <p>Version 01 held the same fields record by record, version 02 had no active chain; such a file
 * is "not a block index cache of this version" and is replaced after one scan.
 */
final class BlockIndexCache {

  /** Its name in the work directory. */
  static final String FILE_NAME = "block-index.cache";

  private static final byte[] MAGIC = {'B', 'B', 'F', 'B', 'I', 'X', '0', '3'};
  private static final int DIGEST_BYTES = 32;
  private static final int HEAD_BYTES = MAGIC.length + DIGEST_BYTES + Integer.BYTES;
  static final int RECORD_BYTES = BlockTable.ENCODED_ROW_BYTES;

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

  /** What was kept for a snapshot: its records and the active chain computed from them. */
  record Kept(BlockTable records, ActiveChain chain) {}

  /**
   * The records and chain kept for a snapshot with {@code digest}, or empty when there are none for
   * it (no file, another digest, or a file that is not intact: each said in the log, none an
   * error).
   */
  Optional<Kept> read(byte[] digest) {
    // mapped, not read: no 140 MB buffer (at mainnet) to zero and fill before the columns are
    // copied out of it; unmapped when this returns. The file is only ever replaced by a rename
    // (AtomicFileWriter), never truncated in place, so the mapping cannot shrink under the copy.
    try (Arena arena = Arena.ofConfined();
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      if (size < HEAD_BYTES + Integer.BYTES || size > Integer.MAX_VALUE) {
        return refused("is not a block index cache of this version");
      }
      MemorySegment bytes = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
      String problem = problem(bytes, digest);
      if (problem != null) {
        return refused(problem);
      }
      int n = bytes.get(INT_LE, MAGIC.length + DIGEST_BYTES);
      BlockTable records = BlockTable.read(bytes, HEAD_BYTES, n);
      long at = HEAD_BYTES + (long) n * RECORD_BYTES;
      int m = bytes.get(INT_LE, at);
      int[] rows = new int[m];
      MemorySegment.copy(bytes, INT_LE, at + Integer.BYTES, rows, 0, m);
      at += Integer.BYTES + (long) m * Integer.BYTES;
      byte[] work = new byte[bytes.get(INT_LE, at)];
      MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, at + Integer.BYTES, work, 0, work.length);
      Optional<ActiveChain> chain = ActiveChain.ofCachedRows(records, rows, new BigInteger(work));
      if (chain.isEmpty()) {
        return refused("holds an active chain that is not its records'");
      }
      return Optional.of(new Kept(records, chain.get()));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException | OutOfMemoryError | InternalError e) {
      // InternalError: a page of the mapping could not be read (the file shrank after all)
      LOG.log(System.Logger.Level.WARNING, file + " unreadable, reading the block index: " + e);
      return Optional.empty();
    }
  }

  private Optional<Kept> refused(String problem) {
    LOG.log(System.Logger.Level.INFO, file + " " + problem + ": reading the block index");
    return Optional.empty();
  }

  private static final ValueLayout.OfInt INT_LE =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  /** Why {@code bytes} cannot be taken for {@code digest}, or null if they can. */
  private static @Nullable String problem(MemorySegment bytes, byte[] digest) {
    long length = bytes.byteSize();
    byte[] head = new byte[HEAD_BYTES];
    MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, 0, head, 0, HEAD_BYTES);
    if (length < HEAD_BYTES + Integer.BYTES
        || !Arrays.equals(head, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      return "is not a block index cache of this version";
    }
    if (!Arrays.equals(head, MAGIC.length, HEAD_BYTES - Integer.BYTES, digest, 0, DIGEST_BYTES)) {
      return "was written for another state of the node's block index";
    }
    long n = Integer.toUnsignedLong(bytes.get(INT_LE, MAGIC.length + DIGEST_BYTES));
    // the records, then the chain's length and rows, then the work's length and bytes: each
    // length read only where the bytes before it are known to be there
    long at = HEAD_BYTES + n * RECORD_BYTES;
    long m = at + Integer.BYTES <= length ? Integer.toUnsignedLong(bytes.get(INT_LE, at)) : -1;
    at += Integer.BYTES + Math.max(m, 0) * Integer.BYTES;
    long w =
        m >= 1 && at + Integer.BYTES <= length ? Integer.toUnsignedLong(bytes.get(INT_LE, at)) : -1;
    if (n > Integer.MAX_VALUE / RECORD_BYTES
        || m < 1
        || w < 1
        || length != at + Integer.BYTES + w + Integer.BYTES) {
      return "has " + length + " bytes, not what its " + n + " records and active chain take";
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes.asSlice(0, length - Integer.BYTES).asByteBuffer());
    if ((int) crc.getValue() != bytes.get(INT_LE, length - Integer.BYTES)) {
      return "fails its CRC32C";
    }
    return null;
  }

  /**
   * Keeps {@code records} (in key order, as the scan gave them) and {@code chain} (computed from
   * them) for a snapshot with {@code digest}, replacing what was kept (atomically: a crash leaves
   * the old file or the new one).
   */
  void write(byte[] digest, BlockTable records, ActiveChain chain) throws IOException {
    int[] rows = chain.rows();
    byte[] work = chain.tipWork().toByteArray();
    byte[] bytes =
        new byte
            [Math.toIntExact(
                HEAD_BYTES
                    + (long) records.size() * RECORD_BYTES
                    + Integer.BYTES
                    + (long) rows.length * Integer.BYTES
                    + Integer.BYTES
                    + work.length
                    + Integer.BYTES)];
    ByteBuffer out = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    out.put(MAGIC).put(digest).putInt(records.size());
    long at = records.write(MemorySegment.ofArray(bytes), HEAD_BYTES);
    out.position(Math.toIntExact(at)).putInt(rows.length);
    out.asIntBuffer().put(rows);
    out.position(out.position() + rows.length * Integer.BYTES).putInt(work.length).put(work);
    int end = out.position();
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, end);
    out.putInt(end, (int) crc.getValue());
    AtomicFileWriter.write(file, bytes);
  }
}
