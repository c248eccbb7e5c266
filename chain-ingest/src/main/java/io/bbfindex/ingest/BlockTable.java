package io.bbfindex.ingest;

import io.bbfindex.ingest.records.DiskBlockIndex;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * The node's {@code 'b'} block records, decoded and checked once, kept as a flat file in the work
 * directory ({@link #FILE_NAME}) so that the next start reads them in one sequential pass instead
 * of scanning the LevelDB and decoding (and checking the proof of work of) every record again:
 * about 950,000 records on mainnet.
 *
 * <p>A table is used only for the very block index it was made from: it records a fingerprint of
 * the node's {@code blocks/index} directory (its path, and each data file's name, size and
 * modification time: LevelDB only appends to its log and writes new tables, so any write changes
 * it), and a table whose fingerprint differs is ignored and rewritten. Its bytes carry a CRC32C: a
 * damaged table is ignored too, never read into wrong answers.
 *
 * <p>Format (little-endian): magic {@code BBFBTAB1}, fingerprint (int32 length + UTF-8), int32
 * record count, the records (32-byte hash, int32 height, status, nTx, file, int64 dataPos, undoPos,
 * 80-byte header), then the CRC32C of everything before it.
 */
final class BlockTable {

  static final String FILE_NAME = "block-table.bin";

  private static final byte[] MAGIC = "BBFBTAB1".getBytes(StandardCharsets.US_ASCII);
  private static final int RECORD_BYTES = 32 + 4 * 4 + 2 * 8 + DiskBlockIndex.HEADER_BYTES;
  private static final int MAX_FINGERPRINT_BYTES = 1 << 24;

  private BlockTable() {}

  /**
   * What identifies the content of the LevelDB in {@code indexDir}: its path and each file's name,
   * size and modification time, except LevelDB's info log ({@code LOG}, {@code LOG.old}: rewritten
   * at every open, no data) and its {@code LOCK}.
   */
  static String fingerprint(Path indexDir) throws IOException {
    TreeMap<String, String> files = new TreeMap<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(indexDir)) {
      for (Path f : s) {
        String name = f.getFileName().toString();
        if (name.equals("LOG") || name.equals("LOG.old") || name.equals("LOCK")) {
          continue;
        }
        BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
        files.put(name, a.size() + ":" + a.lastModifiedTime().toInstant());
      }
    }
    StringBuilder out = new StringBuilder(indexDir.toAbsolutePath().normalize().toString());
    files.forEach((n, v) -> out.append('\n').append(n).append('=').append(v));
    return out.toString();
  }

  /**
   * The records of the table in {@code file} if it was made from the block index with this {@code
   * fingerprint}; null when it is missing, was made from another state of the index, or is damaged.
   */
  static @Nullable List<DiskBlockIndex> read(Path file, String fingerprint) throws IOException {
    ByteBuffer b;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      if (size < MAGIC.length + 12 || size > Integer.MAX_VALUE - 8) {
        return null;
      }
      b = ByteBuffer.allocate((int) size).order(ByteOrder.LITTLE_ENDIAN);
      while (b.hasRemaining() && ch.read(b) >= 0) {
        // until full
      }
      b.flip();
    } catch (NoSuchFileException e) {
      return null;
    }
    if (b.remaining() < MAGIC.length + 12 || !hasMagic(b) || !crcHolds(b)) {
      return null;
    }
    b.position(MAGIC.length);
    int fpLength = b.getInt();
    if (fpLength < 0 || fpLength > Math.min(MAX_FINGERPRINT_BYTES, b.remaining() - 8)) {
      return null;
    }
    byte[] fp = new byte[fpLength];
    b.get(fp);
    if (!fingerprint.equals(new String(fp, StandardCharsets.UTF_8))) {
      return null;
    }
    int count = b.getInt();
    if (count < 0 || (long) count * RECORD_BYTES != b.remaining() - 4L) {
      return null;
    }
    List<DiskBlockIndex> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      byte[] hash = new byte[32];
      b.get(hash);
      int height = b.getInt();
      int status = b.getInt();
      int txCount = b.getInt();
      int blockFile = b.getInt();
      long dataPos = b.getLong();
      long undoPos = b.getLong();
      byte[] header = new byte[DiskBlockIndex.HEADER_BYTES];
      b.get(header);
      out.add(
          new DiskBlockIndex(
              hash, 0, height, status, txCount, blockFile, dataPos, undoPos, header));
    }
    return out;
  }

  private static boolean hasMagic(ByteBuffer b) {
    for (int i = 0; i < MAGIC.length; i++) {
      if (b.get(i) != MAGIC[i]) {
        return false;
      }
    }
    return true;
  }

  private static boolean crcHolds(ByteBuffer b) {
    int end = b.limit() - 4;
    CRC32C crc = new CRC32C();
    crc.update(b.slice(0, end));
    return (int) crc.getValue() == b.getInt(end);
  }

  /**
   * Writes the table of {@code records} for the block index with this {@code fingerprint} to {@code
   * file}, atomically (a temporary file renamed over it: a concurrent reader sees the old table or
   * the new one, and a killed write leaves no partial table under the name).
   */
  static void write(Path file, String fingerprint, List<DiskBlockIndex> records)
      throws IOException {
    byte[] fp = fingerprint.getBytes(StandardCharsets.UTF_8);
    long size = MAGIC.length + 4L + fp.length + 4 + (long) records.size() * RECORD_BYTES + 4;
    if (size > Integer.MAX_VALUE - 8) {
      throw new IOException("block table of " + records.size() + " records is too large");
    }
    ByteBuffer b = ByteBuffer.allocate((int) size).order(ByteOrder.LITTLE_ENDIAN);
    b.put(MAGIC).putInt(fp.length).put(fp).putInt(records.size());
    for (DiskBlockIndex r : records) {
      b.put(r.hash())
          .putInt(r.height())
          .putInt(r.status())
          .putInt(r.txCount())
          .putInt(r.file())
          .putLong(r.dataPos())
          .putLong(r.undoPos())
          .put(r.header());
    }
    CRC32C crc = new CRC32C();
    crc.update(b.slice(0, b.position()));
    b.putInt((int) crc.getValue());
    b.flip();
    Path tmp = Files.createTempFile(file.getParent(), FILE_NAME, ".tmp");
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        while (b.hasRemaining()) {
          ch.write(b);
        }
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
