package io.bbfindex.filters.io;

import io.bbfindex.filters.BlockedBloomFilter;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A filter file mapped and completely verified ({@link FilterFile#map}), kept open so that its
 * verified in-memory copy can be made afterwards ({@link #copy}) from the same file, even if
 * another file has been renamed over its path meanwhile.
 *
 * <p>Why both: a server can answer from the mapping as soon as its checksums pass, about half a
 * second for a 1.75 GiB summary already in the page cache, while the copy (fresh memory, which this
 * machine's hypervisor backs on first touch: 1-5 s for the same summary) is made behind it. The
 * mapping is only safe while the file is unchanged, which its user must confirm (a stat) before it
 * trusts a "no"; its filter answers with the scalar kernel, whose fault on a truncated file HotSpot
 * turns into an {@link InternalError} where a compiled Vector API load can crash the JVM. The copy
 * answers from the bits verified while it was read, whatever happens to the file afterwards.
 */
public final class MappedFilterFile implements AutoCloseable {

  private final Path path;
  private final FileChannel channel;
  private final FilterFileHeader header;
  private final LoadedFilter mapping;

  private MappedFilterFile(
      Path path, FileChannel channel, FilterFileHeader header, LoadedFilter mapping) {
    this.path = path;
    this.channel = channel;
    this.header = header;
    this.mapping = mapping;
  }

  static MappedFilterFile open(Path file) throws FilterFileException {
    Objects.requireNonNull(file, "file");
    FileChannel ch = null;
    try {
      ch = FileChannel.open(file, StandardOpenOption.READ);
      FileChannel open = ch;
      FilterFileHeader header = FilterFile.readHeader(file, open);
      LoadedFilter mapping =
          FilterFile.verified(
              file,
              header,
              arena -> FilterFile.mapCountedData(open, header.geometry().byteSize(), arena),
              BlockedBloomFilter.Kernel.SCALAR);
      return new MappedFilterFile(file, open, header, mapping);
    } catch (IOException | RuntimeException e) {
      closeQuietly(ch);
      if (e instanceof FilterFileException f) {
        throw f;
      }
      throw new FilterFileException(file, "cannot read: " + e, e);
    }
  }

  /**
   * The verified mapping (scalar kernel; its set bits counted in the pass that checked it); valid
   * until {@link #close}.
   */
  public LoadedFilter mapping() {
    return mapping;
  }

  /**
   * A verified in-memory copy of the data read again from the same open file, as {@link
   * FilterFile#read} makes it, checked against the checksum of the header verified when mapping.
   *
   * @throws FilterFileException if the file shrank or its bits changed since it was mapped (or the
   *     read fails, e.g. interrupted)
   */
  public LoadedFilter copy() throws FilterFileException {
    try {
      return FilterFile.verified(
          path,
          header,
          arena -> FilterFile.copyData(path, channel, header.geometry().byteSize(), arena),
          BlockedBloomFilter.bestKernel());
    } catch (FilterFileException e) {
      throw e;
    } catch (IOException e) {
      throw new FilterFileException(path, "cannot read: " + e, e);
    }
  }

  /** Unmaps the file and closes it. Copies made stay valid. */
  @Override
  public void close() {
    mapping.close();
    closeQuietly(channel);
  }

  private static void closeQuietly(@Nullable FileChannel ch) {
    if (ch != null) {
      try {
        ch.close();
      } catch (IOException ignored) {
        // read-only: nothing was written that a failed close could lose
      }
    }
  }
}
