package io.bbfindex.ingest.encoding;

import java.io.IOException;

/**
 * A record read from Bitcoin Core's data (a LevelDB value, a block-file record, a transaction) is
 * truncated, malformed or fails its integrity check (a header that does not hash to its key, a
 * transaction whose txid differs from the one asked for). The message names the record (its key or
 * file and position) and the field that was being read.
 *
 * <p>Thrown instead of ever returning a value decoded from bytes that do not hold together.
 */
public class CorruptRecordException extends IOException {

  private static final long serialVersionUID = 1L;

  private final String message;

  public CorruptRecordException(String message) {
    super(message);
    this.message = message;
  }

  public CorruptRecordException(String message, Throwable cause) {
    super(message, cause);
    this.message = message;
  }

  /** The message: there always is one. */
  @Override
  public String getMessage() {
    return message;
  }
}
