package io.bbfindex.app.push;

import io.bbfindex.ingest.encoding.Hash32;
import java.util.Optional;
import java.util.regex.Pattern;

/** A txid as clients write it: 64 hex characters, displayed order. */
public final class TxidParam {
  private static final Pattern TXID = Pattern.compile("[0-9a-fA-F]{64}");

  private TxidParam() {}

  /** The txid, or empty when {@code text} is not one. */
  public static Optional<Hash32> parse(String text) {
    return TXID.matcher(text).matches()
        ? Optional.of(Hash32.ofDisplayHex(text.toLowerCase(java.util.Locale.ROOT)))
        : Optional.empty();
  }
}
