package io.bbfindex.ingest.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.bbfindex.filters.io.FilterFile;
import io.bbfindex.filters.io.FilterFileException;
import io.bbfindex.filters.io.LoadedFilter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Fuzz target: loading a filter file ({@link FilterFile#load}, the filters module's reader that
 * every store opens its files with) from arbitrary bytes.
 *
 * <p>Invariants: a file is either refused with a {@link FilterFileException} that names it, or
 * loaded; never another exception, never an {@link OutOfMemoryError} (the header's sizes are
 * checked against the file's before anything is mapped or allocated; the fuzz run's heap is small).
 * A file that loads is exactly the file the writer produces for the filter and metadata it loaded
 * as: every byte of an accepted file is validated, so a corruption that is not refused cannot
 * change the answers either (no "undetected wrong filter"). And the header checksum {@link
 * FilterFile#headerCrc} reports is the loaded one.
 *
 * <p>Seeds ({@code FilterFileFuzzTestInputs/load/}) are small valid files of each shape and
 * derivation.
 */
class FilterFileFuzzTest {

  private static final Path DIR = tempDir();

  @FuzzTest
  void load(byte[] file) throws IOException {
    Path path = DIR.resolve("fuzzed.bbf");
    Files.write(path, file);
    LoadedFilter loaded;
    try {
      loaded = FilterFile.load(path);
    } catch (FilterFileException refused) {
      assertTrue(
          refused.getMessage().contains(path.toString()), "the refusal does not name the file");
      return;
    }
    try (loaded) {
      assertEquals(loaded.headerCrc(), FilterFile.headerCrc(path));
      Path rewritten = DIR.resolve("rewritten.bbf");
      FilterFile.write(rewritten, loaded.filter(), loaded.metadata());
      assertArrayEquals(
          Files.readAllBytes(rewritten),
          file,
          "an accepted file differs from what the writer writes for what was loaded");
    }
  }

  private static Path tempDir() {
    try {
      Path dir = Files.createTempDirectory("filter-file-fuzz");
      dir.toFile().deleteOnExit();
      dir.resolve("fuzzed.bbf").toFile().deleteOnExit();
      dir.resolve("rewritten.bbf").toFile().deleteOnExit();
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
