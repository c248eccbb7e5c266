package io.bbfindex.ingest.leveldb;

import java.io.IOException;
import java.nio.file.Path;

/**
 * LevelDB failed a read of a snapshot (checksum mismatch, missing table...). leveldbjni reports
 * these as unchecked exceptions of several types; they are translated here into one checked type
 * whose message names the node's directory the snapshot was taken from and LevelDB's own words.
 */
public class LevelDbReadException extends IOException {

  private static final long serialVersionUID = 1L;

  private final transient Path dir;

  LevelDbReadException(Path dir, RuntimeException e) {
    super(dir + ": LevelDB reports " + levelDbMessage(e), e);
    this.dir = dir;
  }

  /** The node's LevelDB directory. */
  public Path dir() {
    return dir;
  }

  /** The innermost message (LevelDB's "Corruption: ..." text, without wrapper class names). */
  private static String levelDbMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.toString() : t.getMessage();
  }
}
