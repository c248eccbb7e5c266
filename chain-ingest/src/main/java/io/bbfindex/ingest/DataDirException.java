package io.bbfindex.ingest;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The path given as a Bitcoin Core data directory cannot be used: it is missing, is not a data
 * directory (e.g. {@code blocks/} itself, or {@code ~/.bitcoin} for a regtest node), holds no
 * readable block index or txindex, or the node is running. The message names the path and says how
 * to fix it.
 */
public class DataDirException extends IOException {

  private static final long serialVersionUID = 1L;

  private final transient Path path;

  public DataDirException(Path path, String problemAndFix) {
    super(path + ": " + problemAndFix);
    this.path = path;
  }

  public DataDirException(Path path, String problemAndFix, Throwable cause) {
    super(path + ": " + problemAndFix, cause);
    this.path = path;
  }

  /** The offending path (the datadir or the file inside it that is wrong). */
  public Path path() {
    return path;
  }
}
