package io.bbfindex.filters.io;

import io.bbfindex.filters.BlockedBloomFilter;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Writes and memory-maps BBF filter files (format: filters/FORMAT.md).
 *
 * <p>A file is written completely to a temporary file beside the target, forced to disk, then
 * renamed over the target and the directory forced, so a reader sees the old file or the new one,
 * never a half-written one, even after a crash. Loading maps the file read-only and validates
 * every header field, the lengths and both CRC32C checksums before the filter answers anything;
 * the filter's bits are the mapping itself (no copy).
 */
public final class FilterFile {

  /** The format version this code writes (and the newest it reads). */
  public static final int FORMAT_VERSION = FilterFileHeader.FORMAT_VERSION;

  /** Byte offset of the data section (64-byte aligned). */
  public static final long DATA_OFFSET = FilterFileHeader.DATA_OFFSET;

  /** Slices written per call: {@link MemorySegment#asByteBuffer()} is limited to 2 GiB. */
  private static final long WRITE_SLICE = 1L << 30;

  private FilterFile() {}

  /**
   * Writes {@code filter} with {@code meta} to {@code file} atomically (temporary file, fsync,
   * rename, fsync of the directory).
   *
   * @throws IOException if writing fails; the target is then unchanged and no temporary is left
   */
  public static void write(Path file, BlockedBloomFilter filter, FilterMetadata meta)
      throws IOException {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(filter, "filter");
    Objects.requireNonNull(meta, "meta");
    MemorySegment data = filter.bits();
    byte[] header = FilterFileHeader.encode(filter, meta, FilterFileHeader.crc32c(data));
    Path target = file.toAbsolutePath();
    Path dir = target.getParent();
    Path tmp =
        dir.resolve(
            "." + target.getFileName() + "." + HexFormat.of().toHexDigits(
                ThreadLocalRandom.current().nextLong()) + ".tmp");
    boolean moved = false;
    try {
      try (FileChannel ch =
          FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        writeFully(ch, ByteBuffer.wrap(header));
        for (long at = 0; at < data.byteSize(); at += WRITE_SLICE) {
          writeFully(ch, data.asSlice(at, Math.min(WRITE_SLICE, data.byteSize() - at)).asByteBuffer());
        }
        ch.force(true);
      }
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("cannot replace " + target + " atomically: " + e.getMessage(), e);
      }
      moved = true;
      forceDirectory(dir);
    } finally {
      if (!moved) {
        Files.deleteIfExists(tmp);
      }
    }
  }

  /**
   * Maps {@code file} read-only and validates it completely: magic, version, header checksum,
   * every field's bounds, the data length against the geometry and the file length, and the data
   * checksum.
   *
   * @throws FilterFileException (naming the file and the problem) if the file is missing,
   *     unreadable, truncated, corrupt, foreign, of a newer format version or out of bounds
   */
  public static LoadedFilter load(Path file) throws FilterFileException {
    Objects.requireNonNull(file, "file");
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      // The header is read into a fixed 128-byte buffer and validated before anything is mapped,
      // so a bad file costs one small read and no mapping.
      ByteBuffer head = ByteBuffer.allocate((int) Math.min(size, FilterFileHeader.HEADER_BYTES));
      while (head.hasRemaining() && ch.read(head, head.position()) > 0) {
        // read until full; a file that shrinks meanwhile fails the checks below
      }
      if (head.hasRemaining()) {
        throw new FilterFileException(file, "the file shrank while being read (was " + size + " bytes)");
      }
      head.flip();
      FilterFileHeader header =
          FilterFileHeader.decode(file, MemorySegment.ofBuffer(head), size);
      return map(file, ch, header);
    } catch (FilterFileException e) {
      throw e;
    } catch (IOException e) {
      throw new FilterFileException(file, "cannot read: " + e, e);
    }
  }

  private static LoadedFilter map(Path file, FileChannel ch, FilterFileHeader header)
      throws IOException {
    long dataLength = header.geometry().byteSize();
    Arena arena = Arena.ofShared();
    boolean ok = false;
    try {
      MemorySegment mapped =
          ch.map(FileChannel.MapMode.READ_ONLY, 0, FilterFileHeader.DATA_OFFSET + dataLength, arena);
      MemorySegment data = mapped.asSlice(FilterFileHeader.DATA_OFFSET, dataLength);
      int dataCrc = FilterFileHeader.crc32c(data);
      if (dataCrc != header.dataCrc()) {
        throw new FilterFileException(
            file,
            "data checksum mismatch (stored " + FilterFileHeader.hex(header.dataCrc())
                + ", computed " + FilterFileHeader.hex(dataCrc) + "): the filter bits are corrupt");
      }
      BlockedBloomFilter filter =
          BlockedBloomFilter.wrapReadOnly(
              header.geometry(), header.salt(), header.keyCount(), data, arena);
      ok = true;
      return new LoadedFilter(file, filter, header.metadata(), header.formatVersion());
    } finally {
      if (!ok) {
        arena.close();
      }
    }
  }

  private static void writeFully(FileChannel ch, ByteBuffer buffer) throws IOException {
    while (buffer.hasRemaining()) {
      ch.write(buffer);
    }
  }

  /** Makes the rename durable. Some platforms cannot open a directory; the rename still stands. */
  private static void forceDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      if (System.getProperty("os.name", "").startsWith("Windows")) {
        return;
      }
      throw e;
    }
  }
}
