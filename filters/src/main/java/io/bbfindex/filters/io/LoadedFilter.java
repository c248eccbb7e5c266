package io.bbfindex.filters.io;

import io.bbfindex.filters.BlockedBloomFilter;
import java.nio.file.Path;

/**
 * A filter file mapped into memory: a read-only {@link BlockedBloomFilter} over the mapping, and
 * the file's metadata. {@link #close()} unmaps the file; the filter must not be used afterwards
 * (it then throws IllegalStateException rather than reading unmapped memory).
 */
public final class LoadedFilter implements AutoCloseable {

  private final Path path;
  private final BlockedBloomFilter filter;
  private final FilterMetadata metadata;
  private final int formatVersion;

  LoadedFilter(Path path, BlockedBloomFilter filter, FilterMetadata metadata, int formatVersion) {
    this.path = path;
    this.filter = filter;
    this.metadata = metadata;
    this.formatVersion = formatVersion;
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
