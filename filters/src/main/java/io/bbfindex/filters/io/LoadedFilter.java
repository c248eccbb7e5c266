package io.bbfindex.filters.io;

import io.bbfindex.filters.BlockedBloomFilter;
import java.nio.file.Path;

/**
 * A filter file mapped into memory: a read-only {@link BlockedBloomFilter} over the mapping, and
 * the file's metadata. {@link #close()} unmaps the file; the filter must not be used afterwards (it
 * then throws IllegalStateException rather than reading unmapped memory).
 */
public final class LoadedFilter implements AutoCloseable {

  private final Path path;
  private final BlockedBloomFilter filter;
  private final FilterMetadata metadata;
  private final int formatVersion;
  private final int headerCrc;

  LoadedFilter(
      Path path,
      BlockedBloomFilter filter,
      FilterMetadata metadata,
      int formatVersion,
      int headerCrc) {
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

  /** The read-only filter, backed by the mapping (no copy). */
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

  /** Unmaps the file. */
  @Override
  public void close() {
    filter.close();
  }

  @Override
  public String toString() {
    return "LoadedFilter[" + path + ", " + filter + ", " + metadata + "]";
  }
}
