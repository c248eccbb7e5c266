package io.bbfindex.ingest.store;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A lookup could not be answered because a filter file changed on disk while the store answered
 * from its mapping (before its verified copies were in, {@link FilterStore#openMappedFirst}): the
 * answer might have come from changed bits, so none is given. The lookup should be retried; the
 * store must be verified again ({@link FilterStore#changedOnDisk} says so too).
 */
public final class FilterStoreChangedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String message;

  private final transient Path file;

  public FilterStoreChangedException(Path file, String message) {
    super(message);
    this.message = message;
    this.file = Objects.requireNonNull(file, "file");
  }

  /** The filter file that changed. */
  public Path file() {
    return file;
  }

  /** What went wrong: there always is a message. */
  @Override
  public String getMessage() {
    return message;
  }
}
