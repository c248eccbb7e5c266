package io.bbfindex.filters.io;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A filter file that cannot be used: missing, unreadable, truncated, corrupt (checksum), foreign
 * (bad magic), written by a newer format version, or with a field out of its documented bounds
 * (filters/FORMAT.md). The message always starts with the file's path, then says what is wrong.
 * Such a file must be rebuilt or refused, never served.
 */
public class FilterFileException extends IOException {

  private static final long serialVersionUID = 1L;

  private final transient Path file;
  private final String problem;

  public FilterFileException(Path file, String problem) {
    super(file + ": " + problem);
    this.file = file;
    this.problem = problem;
  }

  public FilterFileException(Path file, String problem, Throwable cause) {
    super(file + ": " + problem, cause);
    this.file = file;
    this.problem = problem;
  }

  /** The file that was refused. */
  public Path file() {
    return file;
  }

  /** What is wrong with it, without the path. */
  public String problem() {
    return problem;
  }
}
