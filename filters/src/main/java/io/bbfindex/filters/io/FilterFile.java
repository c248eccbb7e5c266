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
 * the old file or the new one, never a half-written one, even after a crash. Both ways of loading
 * validate every header field, the lengths and both CRC32C checksums before the filter answers
 * anything: {@link #load} maps the file read-only (the filter's bits are the mapping), {@link
 * #read} copies the data into memory in the same pass that checks its CRC32C (the bits are then the
 * verified copy, which nothing done to the file afterwards can change).
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
    return open(file, FilterFile::mapData);
  }

  /**
   * Reads {@code file} into memory and validates it completely, like {@link #load}; the data is
   * copied into off-heap memory (64-byte aligned, freed by {@link LoadedFilter#close()}) by one
   * sequential pass that also computes its CRC32C and counts its set bits ({@link
   * LoadedFilter#bitCount()}) while each chunk is in cache.
   *
   * <p>What a server answers from: a mapping reads whatever the file holds at the moment of the
   * read, so a file truncated under it reads as zeros or raises SIGBUS (a JVM crash where C2 has
   * compiled the probe to Vector API loads), and a file rewritten in place answers from other bits.
   * A copy answers from the bits verified here, whatever happens to the file afterwards.
   *
   * @throws FilterFileException (naming the file and the problem) as {@link #load}, and if the file
   *     shrinks while it is read
   */
  public static LoadedFilter read(Path file) throws FilterFileException {
    return open(file, (ch, length, arena) -> copyData(file, ch, length, arena));
  }

  /** A filter's data section as loaded, with the CRC32C computed over it. */
  record Data(MemorySegment bits, int crc32c, long bitCount) {}

  /** Maps or copies the data section of an open file into {@code arena}. */
  @FunctionalInterface
  private interface DataLoader {
    Data load(FileChannel ch, long dataLength, Arena arena) throws IOException;
  }

  /**
   * Maps {@code file} read-only and validates it completely, like {@link #load}, and keeps the file
   * open so that its verified in-memory copy ({@link #read}'s) can be made later from the same
   * file: see {@link MappedFilterFile}.
   *
   * @throws FilterFileException as {@link #load}
   */
  public static MappedFilterFile map(Path file) throws FilterFileException {
    return MappedFilterFile.open(file);
  }

  /** Validates the header, loads the data through {@code loader}, then checks the data CRC. */
  private static LoadedFilter open(Path file, DataLoader loader) throws FilterFileException {
    Objects.requireNonNull(file, "file");
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      FilterFileHeader header = readHeader(file, ch);
      return verified(
          file,
          header,
          arena -> loader.load(ch, header.geometry().byteSize(), arena),
          BlockedBloomFilter.bestKernel());
    } catch (FilterFileException e) {
      throw e;
    } catch (IOException e) {
      throw new FilterFileException(file, "cannot read: " + e, e);
    }
  }

  /** Loads the data of a file whose header is read into a new arena. */
  @FunctionalInterface
  interface ArenaLoader {
    Data load(Arena arena) throws IOException;
  }

  /**
   * Loads the data of {@code file} (whose header is {@code header}) into a new shared arena, checks
   * its CRC against the header's and wraps it as a read-only filter answering with {@code kernel};
   * the arena is closed if anything fails.
   */
  static LoadedFilter verified(
      Path file, FilterFileHeader header, ArenaLoader loader, BlockedBloomFilter.Kernel kernel)
      throws IOException {
    Arena arena = Arena.ofShared();
    boolean ok = false;
    try {
      Data data = loader.load(arena);
      checkDataCrc(file, header, data.crc32c());
      BlockedBloomFilter filter =
          BlockedBloomFilter.wrapReadOnly(
              header.geometry(), header.salt(), header.keyCount(), data.bits(), arena, kernel);
      ok = true;
      return new LoadedFilter(
          file,
          filter,
          header.metadata(),
          header.formatVersion(),
          header.headerCrc(),
          data.bitCount());
    } finally {
      if (!ok) {
        arena.close();
      }
    }
  }

  /** Maps the data section of an open file, and computes its CRC32C (bits not counted). */
  static Data mapData(FileChannel ch, long length, Arena arena) throws IOException {
    MemorySegment data = mapping(ch, length, arena);
    return new Data(data, FilterFileHeader.crc32c(data), LoadedFilter.NOT_COUNTED);
  }

  /**
   * Maps the data section of an open file, with its CRC32C and set bits counted in the same pass.
   */
  static Data mapCountedData(FileChannel ch, long length, Arena arena) throws IOException {
    MemorySegment data = mapping(ch, length, arena);
    VerifiedCopy pass = VerifiedCopy.of(data);
    return new Data(data, pass.crc32c(), pass.bitCount());
  }

  private static MemorySegment mapping(FileChannel ch, long length, Arena arena)
      throws IOException {
    return ch.map(FileChannel.MapMode.READ_ONLY, 0, FilterFileHeader.DATA_OFFSET + length, arena)
        .asSlice(FilterFileHeader.DATA_OFFSET, length);
  }

  /** Copies the data section of an open file into memory, with its CRC32C and set bits. */
  static Data copyData(Path file, FileChannel ch, long length, Arena arena) throws IOException {
    MemorySegment data = CopyMemory.allocate(length, arena);
    VerifiedCopy pass = VerifiedCopy.of(file, ch, FilterFileHeader.DATA_OFFSET, data);
    return new Data(data, pass.crc32c(), pass.bitCount());
  }

  private static void checkDataCrc(Path file, FilterFileHeader header, int dataCrc)
      throws FilterFileException {
    if (dataCrc != header.dataCrc()) {
      throw new FilterFileException(
          file,
          "data checksum mismatch (stored "
              + FilterFileHeader.hex(header.dataCrc())
              + ", computed "
              + FilterFileHeader.hex(dataCrc)
              + "): the filter bits are corrupt");
    }
  }

  /**
   * Reads the header into a fixed 128-byte buffer and validates it before anything is mapped, so a
   * bad file costs one small read and no mapping.
   */
  static FilterFileHeader readHeader(Path file, FileChannel ch) throws IOException {
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
}
