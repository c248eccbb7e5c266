package io.bbfindex.ingest.leveldb;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A node's LevelDB directory could not be snapshotted or opened; names the node's directory. The
 * facade reports it as a {@code DataDirException} with the same directory and words.
 */
public class LevelDbOpenException extends IOException {

  private static final long serialVersionUID = 1L;

  private final transient Path dir;
  private final String problem;

  LevelDbOpenException(Path dir, String problem) {
    super(dir + ": " + problem);
    this.dir = dir;
    this.problem = problem;
  }

  LevelDbOpenException(Path dir, String problem, Throwable cause) {
    super(dir + ": " + problem, cause);
    this.dir = dir;
    this.problem = problem;
  }

  /** The node's LevelDB directory (or the file inside it that is wrong). */
  public Path dir() {
    return dir;
  }

  /** What is wrong, without the directory. */
  public String problem() {
    return problem;
  }
}
