package io.bbfindex.app.push;

import io.bbfindex.ingest.encoding.Hash32;
import io.bbfindex.ingest.encoding.HashKeys;
import java.util.Optional;

/** A txid as clients write it: 64 hex characters, displayed order. */
public final class TxidParam {
  private TxidParam() {}

  /** The txid, or empty when {@code text} is not one. */
  public static Optional<Hash32> parse(String text) {
    byte[] key = new byte[HashKeys.KEY_BYTES];
    return HashKeys.parseDisplayHex(text, 0, text.length(), key, 0) == null
        ? Optional.of(Hash32.ofInternal(key))
        : Optional.empty();
  }
}
