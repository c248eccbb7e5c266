package io.bbfindex.ingest.store;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A filter store (its manifest or one of its filter files) is missing, unreadable, corrupt, or does
 * not match its manifest. The message starts with the offending file's path; {@link #badFiles()}
 * names every file found bad (a store is refused as a whole, never served in part).
 */
public class FilterStoreException extends IOException {

  private final Path file;
  private final List<Path> badFiles;
  private final String problem;

  public FilterStoreException(Path file, String problem) {
    this(file, problem, null);
  }

  public FilterStoreException(Path file, String problem, @Nullable Throwable cause) {
    this(file, List.of(file), problem, cause);
  }

  /** A store with several bad files; the message names the first and counts the rest. */
  public FilterStoreException(
      Path first, List<Path> badFiles, String problem, @Nullable Throwable cause) {
    super(Objects.requireNonNull(first, "file") + ": " + problem, cause);
    this.file = first;
    this.badFiles = List.copyOf(badFiles);
    this.problem = problem;
  }

  /** The (first) file at fault. */
  public Path file() {
    return file;
  }

  /** What is wrong, without the file's path that starts the message. */
  public String problem() {
    return problem;
  }

  /** Every file found bad, in the order checked. */
  public List<Path> badFiles() {
    return badFiles;
  }
}
