package io.bbfindex.ingest.store;

import io.bbfindex.filters.io.FilterFile;
import io.bbfindex.filters.io.FilterFileException;
import io.bbfindex.filters.io.LoadedFilter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * How the store ties a filter file to its manifest entry: by the file's header CRC32C (bytes
 * 124..127 of a version-1 file, filters/FORMAT.md). The header holds the data CRC, geometry, key
 * count and build time, so its CRC identifies one exact file without reading the data twice
 * ({@link FilterFile#load} already checks the data against it).
 */
public final class FilterFiles {

  /** Offset of headerCrc32c in a version-1 filter file (filters/FORMAT.md). */
  static final int HEADER_CRC_OFFSET = 124;

  private FilterFiles() {}

  /**
   * The stored header CRC of {@code file} (not verified here: {@link FilterFile#load} does that).
   *
   * @throws IOException if the file cannot be read or is shorter than a header
   */
  public static int headerCrc(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
      while (b.hasRemaining()) {
        if (ch.read(b, HEADER_CRC_OFFSET + b.position()) < 0) {
          throw new FilterFileException(file, "shorter than a filter file header");
        }
      }
      return b.getInt(0);
    }
  }

  /**
   * Loads {@code file} (full validation by {@link FilterFile#load}) and checks that it is the file
   * the manifest names (same header CRC).
   *
   * @throws FilterStoreException naming the file if it is missing, corrupt or not the manifest's
   */
  public static LoadedFilter loadExpected(Path file, int expectedHeaderCrc) throws FilterStoreException {
    if (!Files.exists(file)) {
      throw new FilterStoreException(file, "filter file is missing");
    }
    LoadedFilter loaded;
    try {
      loaded = FilterFile.load(file);
    } catch (FilterFileException e) {
      throw new FilterStoreException(file, "filter file is invalid: " + e.problem(), e);
    }
    try {
      int crc = headerCrc(file);
      if (crc != expectedHeaderCrc) {
        throw new FilterStoreException(file, String.format(Locale.ROOT,
            "filter file is not the one the manifest lists (header CRC %08x, manifest %08x): stale or replaced",
            crc, expectedHeaderCrc));
      }
      return loaded;
    } catch (IOException e) {
      loaded.close();
      throw e instanceof FilterStoreException f ? f
          : new FilterStoreException(file, "filter file cannot be read: " + e.getMessage(), e);
    }
  }
}
