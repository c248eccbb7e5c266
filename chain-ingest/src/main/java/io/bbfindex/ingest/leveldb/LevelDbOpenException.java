package io.bbfindex.ingest.leveldb;

import io.bbfindex.ingest.DataDirException;
import java.nio.file.Path;

/** A node's LevelDB directory could not be snapshotted or opened; names the node's directory. */
public class LevelDbOpenException extends DataDirException {

  private static final long serialVersionUID = 1L;

  public LevelDbOpenException(Path dir, String problem) {
    super(dir, problem);
  }

  public LevelDbOpenException(Path dir, String problem, Throwable cause) {
    super(dir, problem, cause);
  }
}
