package io.bbfindex.benchmarks.harness;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The project root the launcher passes as {@code -Dbbf.home}: where the suites write {@code
 * bench-results/} and find the checked-in fixtures and tools.
 */
public final class ProjectHome {

  private ProjectHome() {}

  /** The project root, or null when the benchmarks run outside the launcher (tests). */
  public static @Nullable Path home() {
    String home = System.getProperty("bbf.home");
    return home == null || home.isBlank() ? null : Path.of(home).toAbsolutePath().normalize();
  }
}
