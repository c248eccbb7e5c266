package io.bbfindex.ingest.ownindex;

import java.io.IOException;
import java.nio.file.Path;

/** An own index file that is not one, or is damaged: names the file and what is wrong. */
public final class OwnIndexCorruptException extends IOException {

  private static final long serialVersionUID = 1L;

  private final transient Path file;

  OwnIndexCorruptException(Path file, String problem) {
    super(file + ": " + problem + "; delete it to have it rebuilt");
    this.file = file;
  }

  OwnIndexCorruptException(Path file, String problem, Throwable cause) {
    this(file, problem);
    initCause(cause);
  }

  /** The file at fault. */
  public Path file() {
    return file;
  }
}
