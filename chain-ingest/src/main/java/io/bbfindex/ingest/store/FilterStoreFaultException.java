package io.bbfindex.ingest.store;

import java.nio.file.Path;

/**
 * A mapped filter file of an open store can no longer be trusted: it faulted when read (the JVM
 * turns the SIGBUS of a page past a truncation into an {@link InternalError}), or it changed in
 * place since it was verified. The lookup it interrupted has no answer; the store must be
 * re-verified or rebuilt ({@link FilterStore#open}) before it serves again.
 */
public final class FilterStoreFaultException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient Path file;

  FilterStoreFaultException(Path file, String why, Throwable cause) {
    super(file + ": " + why, cause);
    this.file = file;
  }

  /** The filter file at fault. */
  public Path file() {
    return file;
  }
}
