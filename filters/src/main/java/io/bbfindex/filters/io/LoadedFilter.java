package io.bbfindex.filters.io;

import io.bbfindex.filters.BlockedBloomFilter;
import java.nio.file.Path;

/**
 * A loaded filter file: a read-only {@link BlockedBloomFilter} over the file's mapping ({@link
 * FilterFile#load}) or over a verified in-memory copy of its data ({@link FilterFile#read}), and
 * the file's metadata. {@link #close()} unmaps the file or frees the copy; the filter must not be
 * used afterwards (it then throws IllegalStateException rather than reading freed memory).
 */
public final class LoadedFilter implements AutoCloseable {

  private final Path path;
  private final BlockedBloomFilter filter;
  private final FilterMetadata metadata;
  private final int formatVersion;
  private final int headerCrc;
  private final long bitCount;

  /** {@link #bitCount()} of a filter whose bits were not counted at load (a mapping). */
  public static final long NOT_COUNTED = -1;

  LoadedFilter(
      Path path,
      BlockedBloomFilter filter,
      FilterMetadata metadata,
      int formatVersion,
      int headerCrc,
      long bitCount) {
    this.bitCount = bitCount;
    this.path = path;
    this.filter = filter;
    this.metadata = metadata;
    this.formatVersion = formatVersion;
    this.headerCrc = headerCrc;
  }

  /** The file this was loaded from. */
  public Path path() {
    return path;
  }

  /** The read-only filter, backed by the mapping or the verified copy. */
  public BlockedBloomFilter filter() {
    return filter;
  }

  public FilterMetadata metadata() {
    return metadata;
  }

  /** The file's format version. */
  public int formatVersion() {
    return formatVersion;
  }

  /**
   * The CRC32C of the file's header, as stored and verified at load. The header holds the data CRC,
   * the geometry, the key count and the build time, so this one number identifies the exact file: a
   * store's manifest records it to tell its own files from stale or swapped ones.
   */
  public int headerCrc() {
    return headerCrc;
  }

  /**
   * The filter's set bits, counted by the pass that read them ({@link FilterFile#read}), so that
   * describing a large filter costs no second pass; {@link #NOT_COUNTED} for a mapping.
   */
  public long bitCount() {
    return bitCount;
  }

  /** Unmaps the file or frees the copy. */
  @Override
  public void close() {
    filter.close();
  }

  @Override
  public String toString() {
    return "LoadedFilter[" + path + ", " + filter + ", " + metadata + "]";
  }
}
