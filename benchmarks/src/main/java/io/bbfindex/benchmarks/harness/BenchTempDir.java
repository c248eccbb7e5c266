package io.bbfindex.benchmarks.harness;

import io.bbfindex.ingest.testing.FileTrees;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A benchmark's scratch directory: created under the system temporary directory, deleted with
 * everything in it on {@link #close} and, should the JVM be interrupted (Ctrl-C), by a shutdown
 * hook. Benchmarks write nothing else outside the project's {@code bench-results/}.
 */
public final class BenchTempDir implements AutoCloseable {

  private final Path dir;
  private final Thread hook;

  private BenchTempDir(Path dir) {
    this.dir = dir;
    this.hook = new Thread(this::deleteQuietly, "bench-tempdir-cleanup");
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /** A new empty directory named {@code prefix...} in {@code java.io.tmpdir}. */
  public static BenchTempDir create(String prefix) throws IOException {
    return new BenchTempDir(Files.createTempDirectory(prefix));
  }

  public Path path() {
    return dir;
  }

  /** Deletes the tree. */
  @Override
  public void close() throws IOException {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs anyway
    }
    FileTrees.deleteTree(dir);
  }

  private void deleteQuietly() {
    try {
      FileTrees.deleteTree(dir);
    } catch (IOException | UncheckedIOException e) {
      System.err.println("could not delete " + dir + ": " + e.getMessage());
    }
  }
}
