package io.bbfindex.ingest.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Scratch-directory clean-up for tests and benchmarks (the product keeps its own in NodeIndex). */
public final class FileTrees {

  private FileTrees() {}

  /**
   * Deletes {@code root} and everything below it (nothing if it does not exist).
   *
   * @throws IOException if a file cannot be deleted
   */
  public static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
