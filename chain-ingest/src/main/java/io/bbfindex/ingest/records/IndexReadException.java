package io.bbfindex.ingest.records;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A lookup on an open {@link NodeIndex} failed: a record read from the snapshot or a block file is
 * corrupt ({@link #getCause()} is then an {@link
 * io.bbfindex.ingest.encoding.CorruptRecordException} naming the record and field), a transaction's
 * bytes do not hash to the txid asked for, or a file could not be read. Unchecked so that lookups
 * compose in request handlers; the message always names the txid/block and the file or key
 * involved. Never means "absent": absence is an empty {@code Optional}.
 */
public class IndexReadException extends UncheckedIOException {

  private static final long serialVersionUID = 1L;

  private final String message;

  public IndexReadException(String message, IOException cause) {
    super(message, cause);
    this.message = message;
  }

  /** What went wrong: there always is a message. */
  @Override
  public String getMessage() {
    return message;
  }
}
