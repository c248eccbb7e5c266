package io.bbfindex.ingest.encoding;

import static io.bbfindex.filters.Arguments.requireArgument;

import org.jspecify.annotations.Nullable;

/**
 * The one codec of 32-byte hashes (txids, block hashes): between the display hex (64 hex
 * characters, big-endian, as explorers and Core's RPC show them) and the internal byte order
 * (SHA-256d output) that filters, Core's LevelDB keys and block files use.
 *
 * <p>The conversion happens once, at the edge: display hex digit pair {@code i} (0-based, from the
 * left) is internal byte {@code 31 - i} (chain-ingest/README.md). Parsing accepts upper and lower
 * case; output is always lower case, so an answer echoes a normalised id.
 *
 * <p>Why not {@link java.util.HexFormat} throughout: {@link #parseDisplayHex} and {@link
 * #toDisplayHexAscii} sit on the HTTP hot path ({@code GET /v1/tx/{txid}}, batch bodies and every
 * JSON answer). They read the id straight out of the request's {@code CharSequence} at an offset
 * and write reversed bytes into a caller's buffer, with no substring, no intermediate array and no
 * exception for a bad id (a reason string instead, which the handler turns into a 400). HexFormat
 * would cost a substring, a second array for the reversal and an exception per malformed id. The
 * tests hold both methods to HexFormat's output on random keys. Elsewhere (error messages,
 * manifests, tests) use {@link #toDisplayHex} and {@link #fromDisplayHex}, or HexFormat for hex
 * that is not a hash.
 */
public final class HashKeys {
  /** Bytes in a txid or block hash. */
  public static final int KEY_BYTES = 32;

  /** Hex characters in a displayed txid or block hash. */
  public static final int HEX_CHARS = 2 * KEY_BYTES;

  private static final byte[] HEX_DIGITS =
      "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  /**
   * Maps an ASCII character to its hex value, or -1; one table lookup per character on the hot
   * path.
   */
  private static final byte[] HEX_VALUE = new byte[128];

  static {
    java.util.Arrays.fill(HEX_VALUE, (byte) -1);
    for (int c = '0'; c <= '9'; c++) HEX_VALUE[c] = (byte) (c - '0');
    for (int c = 'a'; c <= 'f'; c++) HEX_VALUE[c] = (byte) (c - 'a' + 10);
    for (int c = 'A'; c <= 'F'; c++) HEX_VALUE[c] = (byte) (c - 'A' + 10);
  }

  private HashKeys() {}

  /**
   * Parses {@code text[from, to)} as a displayed hash into {@code out[outOffset .. outOffset + 32)}
   * in internal byte order.
   *
   * @return {@code null} when the text is a valid hash, otherwise a short reason (never echoing the
   *     input), e.g. {@code "got 63 characters"} or {@code "character 5 is not a hex digit"}
   */
  public static @Nullable String parseDisplayHex(
      CharSequence text, int from, int to, byte[] out, int outOffset) {
    int length = to - from;
    if (length != HEX_CHARS) {
      return "got " + length + " characters";
    }
    for (int i = 0; i < KEY_BYTES; i++) {
      int hi = hexValue(text.charAt(from + 2 * i));
      int lo = hexValue(text.charAt(from + 2 * i + 1));
      if ((hi | lo) < 0) {
        int bad = hi < 0 ? 2 * i : 2 * i + 1;
        return "character " + bad + " is not a hex digit";
      }
      out[outOffset + KEY_BYTES - 1 - i] = (byte) (hi << 4 | lo);
    }
    return null;
  }

  /**
   * Parses a whole displayed hash.
   *
   * @throws IllegalArgumentException naming {@code what} and the reason when {@code text} is not 64
   *     hex characters
   */
  public static byte[] fromDisplayHex(String what, CharSequence text) {
    byte[] key = new byte[KEY_BYTES];
    String problem = parseDisplayHex(text, 0, text.length(), key, 0);
    requireArgument(problem == null, what + " must be " + HEX_CHARS + " hex characters", problem);
    return key;
  }

  /**
   * Writes the 64 display-hex ASCII bytes of {@code key[offset .. offset + 32)} into {@code out}.
   */
  public static void toDisplayHexAscii(byte[] key, int offset, byte[] out, int outOffset) {
    for (int i = 0; i < KEY_BYTES; i++) {
      int b = key[offset + KEY_BYTES - 1 - i] & 0xff;
      out[outOffset + 2 * i] = HEX_DIGITS[b >>> 4];
      out[outOffset + 2 * i + 1] = HEX_DIGITS[b & 0x0f];
    }
  }

  /** The displayed (big-endian, lower-case) hex of an internal-order 32-byte key. */
  public static String toDisplayHex(byte[] key) {
    requireArgument(key.length == KEY_BYTES, "key must be " + KEY_BYTES + " bytes", key.length);
    byte[] ascii = new byte[HEX_CHARS];
    toDisplayHexAscii(key, 0, ascii, 0);
    return new String(ascii, java.nio.charset.StandardCharsets.US_ASCII);
  }

  private static int hexValue(char c) {
    return c < 128 ? HEX_VALUE[c] : -1;
  }
}
