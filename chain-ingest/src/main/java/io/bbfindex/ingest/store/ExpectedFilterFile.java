package io.bbfindex.ingest.store;

import io.bbfindex.filters.io.FilterFile;
import io.bbfindex.filters.io.FilterFileException;
import io.bbfindex.filters.io.LoadedFilter;
import io.bbfindex.filters.io.MappedFilterFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * How the store ties a filter file to its manifest entry: by the file's header CRC32C ({@link
 * LoadedFilter#headerCrc()}). The header holds the data CRC, geometry, key count and build time, so
 * its CRC identifies one exact file without reading the data twice ({@link FilterFile#load} already
 * checks the data against it).
 */
public final class ExpectedFilterFile {

  private ExpectedFilterFile() {}

  /**
   * Maps {@code file} (full validation by {@link FilterFile#load}) and checks that it is the file
   * the manifest names (same header CRC).
   *
   * @throws FilterStoreException naming the file if it is missing, corrupt or not the manifest's
   */
  public static LoadedFilter load(Path file, int expectedHeaderCrc) throws FilterStoreException {
    return checked(file, expectedHeaderCrc, FilterFile::load, null);
  }

  /**
   * As {@link #load}, into a verified in-memory copy ({@link FilterFile#read}): what a store that
   * serves lookups holds.
   */
  public static LoadedFilter read(Path file, int expectedHeaderCrc) throws FilterStoreException {
    return checked(file, expectedHeaderCrc, FilterFile::read, null);
  }

  /**
   * As {@link #load}, kept open for its verified copy ({@link FilterFile#map}): what a store opened
   * mapped first holds until its copies are in.
   */
  public static MappedFilterFile map(Path file, int expectedHeaderCrc) throws FilterStoreException {
    MappedFilterFile[] mapped = new MappedFilterFile[1];
    checked(
        file,
        expectedHeaderCrc,
        f -> {
          mapped[0] = FilterFile.map(f);
          return mapped[0].mapping();
        },
        () -> mapped[0].close());
    return mapped[0];
  }

  /** {@link FilterFile#load} or {@link FilterFile#read}. */
  @FunctionalInterface
  private interface Loader {
    LoadedFilter load(Path file) throws FilterFileException;
  }

  /**
   * Loads and checks {@code file}; a file that is not the manifest's is closed, by {@code release}
   * when given (what owns the loaded filter), else by closing the filter itself.
   */
  private static LoadedFilter checked(
      Path file, int expectedHeaderCrc, Loader loader, Runnable release)
      throws FilterStoreException {
    if (!Files.exists(file)) {
      throw new FilterStoreException(file, "filter file is missing");
    }
    LoadedFilter loaded;
    try {
      loaded = loader.load(file);
    } catch (FilterFileException e) {
      throw new FilterStoreException(file, "filter file is invalid: " + e.problem(), e);
    }
    if (loaded.headerCrc() != expectedHeaderCrc) {
      if (release != null) {
        release.run();
      } else {
        loaded.close();
      }
      throw new FilterStoreException(
          file,
          String.format(
              Locale.ROOT,
              "filter file is not the one the manifest lists (header CRC %08x, manifest %08x):"
                  + " stale or replaced",
              loaded.headerCrc(),
              expectedHeaderCrc));
    }
    return loaded;
  }
}
