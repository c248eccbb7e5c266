package io.bbfindex.app.route;

import io.bbfindex.ingest.encoding.HashKeys;

/** A 32-byte hash in a request path, as explorers display it (64 hex characters, any case). */
public final class HashParam {
  private HashParam() {}

  /**
   * The hash's internal-order bytes, or a 400 {@code error} saying why {@code text} is not {@code
   * what} (never echoing the input).
   */
  public static byte[] parse(String text, String error, String what) {
    byte[] key = new byte[HashKeys.KEY_BYTES];
    String problem = HashKeys.parseDisplayHex(text, 0, text.length(), key, 0);
    if (problem != null) {
      throw Refusal.badRequest(
              error, what + " must be " + HashKeys.HEX_CHARS + " hex characters: " + problem)
          .toException();
    }
    return key;
  }
}
