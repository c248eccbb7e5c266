package io.bbfindex.ingest.blockfile;

import io.bbfindex.ingest.encoding.CorruptRecordException;

/**
 * The stored bytes of a block, at a position the node's indexes name, are not what commits to them:
 * the header does not hash to the block's hash, the transactions do not fold to the header's merkle
 * root, or a transaction there cannot be parsed. Damage to the block files (or an index pointing
 * into the middle of a block), never a sign that a transaction is absent: a lookup that meets it
 * has no answer it can stand behind.
 */
public final class DamagedBlockException extends CorruptRecordException {

  private static final long serialVersionUID = 1L;

  public DamagedBlockException(String message) {
    super(message);
  }

  public DamagedBlockException(String message, Throwable cause) {
    super(message, cause);
  }
}
