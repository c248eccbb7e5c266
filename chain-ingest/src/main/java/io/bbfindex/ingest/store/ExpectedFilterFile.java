package io.bbfindex.ingest.store;

import io.bbfindex.filters.io.FilterFile;
import io.bbfindex.filters.io.FilterFileException;
import io.bbfindex.filters.io.LoadedFilter;
import io.bbfindex.filters.io.MappedFilterFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Function;

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
    return checked(file, expectedHeaderCrc, FilterFile::load, l -> l, LoadedFilter::close);
  }

  /**
   * As {@link #load}, into a verified in-memory copy ({@link FilterFile#read}): what a store that
   * serves lookups holds.
   */
  public static LoadedFilter read(Path file, int expectedHeaderCrc) throws FilterStoreException {
    return checked(file, expectedHeaderCrc, FilterFile::read, l -> l, LoadedFilter::close);
  }

  /**
   * As {@link #load}, kept open for its verified copy ({@link FilterFile#map}): what a store opened
   * mapped first holds until its copies are in.
   */
  public static MappedFilterFile map(Path file, int expectedHeaderCrc) throws FilterStoreException {
    return checked(
        file,
        expectedHeaderCrc,
        FilterFile::map,
        MappedFilterFile::mapping,
        MappedFilterFile::close);
  }

  /** {@link FilterFile#load}, {@link FilterFile#read} or {@link FilterFile#map}. */
  @FunctionalInterface
  private interface Loader<T> {
    T load(Path file) throws FilterFileException;
  }

  /**
   * Loads {@code file} as a {@code T} (a filter, or a mapped file that owns one: {@code filterOf}
   * gives the filter) and checks it is the manifest's file; one that is not is closed by {@code
   * close}.
   */
  private static <T> T checked(
      Path file,
      int expectedHeaderCrc,
      Loader<T> loader,
      Function<T, LoadedFilter> filterOf,
      Consumer<T> close)
      throws FilterStoreException {
    if (!Files.exists(file)) {
      throw new FilterStoreException(file, "filter file is missing");
    }
    T loaded;
    try {
      loaded = loader.load(file);
    } catch (FilterFileException e) {
      throw new FilterStoreException(file, "filter file is invalid: " + e.problem(), e);
    }
    int headerCrc = filterOf.apply(loaded).headerCrc();
    if (headerCrc != expectedHeaderCrc) {
      close.accept(loaded);
      throw new FilterStoreException(
          file,
          String.format(
              Locale.ROOT,
              "filter file is not the one the manifest lists (header CRC %08x, manifest %08x):"
                  + " stale or replaced",
              headerCrc,
              expectedHeaderCrc));
    }
    return loaded;
  }
}
