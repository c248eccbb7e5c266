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
  private final String levelDbReport;

  LevelDbReadException(Path dir, RuntimeException e) {
    this(dir, "LevelDB reports " + levelDbMessage(e), e);
  }

  private LevelDbReadException(Path dir, String levelDbReport, RuntimeException e) {
    super(dir + ": " + levelDbReport, e);
    this.dir = dir;
    this.levelDbReport = levelDbReport;
  }

  /** The message without the directory: "LevelDB reports " and LevelDB's own words. */
  public String levelDbReport() {
    return levelDbReport;
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
    String message = t.getMessage();
    return message == null ? t.toString() : message;
  }
}
