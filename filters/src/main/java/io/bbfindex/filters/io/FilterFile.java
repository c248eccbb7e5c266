package io.bbfindex.filters.io;

import io.bbfindex.filters.BlockedBloomFilter;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * Writes and memory-maps BBF filter files (format: filters/FORMAT.md).
 *
 * <p>A file is written through {@link AtomicFileWriter}: completely to a temporary file beside the
 * target, forced to disk, then renamed over the target and the directory forced, so a reader sees
 * the old file or the new one, never a half-written one, even after a crash. Loading maps the file
 * read-only and validates every header field, the lengths and both CRC32C checksums before the
 * filter answers anything; the filter's bits are the mapping itself (no copy).
 */
public final class FilterFile {

  /**
   * The newest format version: the one new filters are written in, and the newest this code reads.
   * A filter of a version 1 geometry ({@link io.bbfindex.filters.BbfGeometry#v1}) is written as
   * version 1.
   */
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
    AtomicFileWriter.write(
        file,
        ch -> {
          AtomicFileWriter.writeFully(ch, ByteBuffer.wrap(header));
          for (long at = 0; at < data.byteSize(); at += WRITE_SLICE) {
            AtomicFileWriter.writeFully(
                ch, data.asSlice(at, Math.min(WRITE_SLICE, data.byteSize() - at)).asByteBuffer());
          }
        });
  }

  /**
   * The CRC32C of {@code file}'s header as stored in it, after validating the header (not the data:
   * {@link #load} checks that). It identifies one exact file, see {@link LoadedFilter#headerCrc()}.
   *
   * @throws FilterFileException (naming the file and the problem) if the file is missing,
   *     unreadable, or its header is invalid or does not fit the file's length
   */
  public static int headerCrc(Path file) throws FilterFileException {
    Objects.requireNonNull(file, "file");
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      return readHeader(file, ch).headerCrc();
    } catch (FilterFileException e) {
      throw e;
    } catch (IOException e) {
      throw new FilterFileException(file, "cannot read: " + e, e);
    }
  }

  /**
   * Maps {@code file} read-only and validates it completely: magic, version, header checksum, every
   * field's bounds, the data length against the geometry and the file length, and the data
   * checksum.
   *
   * @throws FilterFileException (naming the file and the problem) if the file is missing,
   *     unreadable, truncated, corrupt, foreign, of a newer format version or out of bounds
   */
  public static LoadedFilter load(Path file) throws FilterFileException {
    Objects.requireNonNull(file, "file");
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      return map(file, ch, readHeader(file, ch));
    } catch (FilterFileException e) {
      throw e;
    } catch (IOException e) {
      throw new FilterFileException(file, "cannot read: " + e, e);
    }
  }

  /**
   * Reads the header into a fixed 128-byte buffer and validates it before anything is mapped, so a
   * bad file costs one small read and no mapping.
   */
  private static FilterFileHeader readHeader(Path file, FileChannel ch) throws IOException {
    long size = ch.size();
    ByteBuffer head = ByteBuffer.allocate((int) Math.min(size, FilterFileHeader.HEADER_BYTES));
    while (head.hasRemaining() && ch.read(head, head.position()) > 0) {
      // read until full; a file that shrinks meanwhile fails the checks below
    }
    if (head.hasRemaining()) {
      throw new FilterFileException(
          file, "the file shrank while being read (was " + size + " bytes)");
    }
    head.flip();
    return FilterFileHeader.decode(file, MemorySegment.ofBuffer(head), size);
  }

  private static LoadedFilter map(Path file, FileChannel ch, FilterFileHeader header)
      throws IOException {
    long dataLength = header.geometry().byteSize();
    Arena arena = Arena.ofShared();
    boolean ok = false;
    try {
      MemorySegment mapped =
          ch.map(
              FileChannel.MapMode.READ_ONLY, 0, FilterFileHeader.DATA_OFFSET + dataLength, arena);
      MemorySegment data = mapped.asSlice(FilterFileHeader.DATA_OFFSET, dataLength);
      int dataCrc = FilterFileHeader.crc32c(data);
      if (dataCrc != header.dataCrc()) {
        throw new FilterFileException(
            file,
            "data checksum mismatch (stored "
                + FilterFileHeader.hex(header.dataCrc())
                + ", computed "
                + FilterFileHeader.hex(dataCrc)
                + "): the filter bits are corrupt");
      }
      BlockedBloomFilter filter =
          BlockedBloomFilter.wrapReadOnly(
              header.geometry(), header.salt(), header.keyCount(), data, arena);
      ok = true;
      return new LoadedFilter(
          file, filter, header.metadata(), header.formatVersion(), header.headerCrc());
    } finally {
      if (!ok) {
        arena.close();
      }
    }
  }
}
