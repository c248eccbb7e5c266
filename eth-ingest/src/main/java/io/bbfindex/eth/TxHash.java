package io.bbfindex.eth;

import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * A 32-byte Ethereum hash (transaction or block) as four longs, big-endian in the order the node
 * writes it: a compact map key ({@code record} equality and hashing over the longs) without a byte
 * array per entry. Keccak-256 output is uniform, so its bytes serve the filters as they are.
 */
public record TxHash(long a, long b, long c, long d) {
  /** Bytes in a hash. */
  public static final int BYTES = 32;

  private static final HexFormat HEX = HexFormat.of();

  /** The hash at {@code bytes[offset .. offset + 32)}. */
  public static TxHash of(byte[] bytes, int offset) {
    return new TxHash(
        Bytes.getLong(bytes, offset),
        Bytes.getLong(bytes, offset + 8),
        Bytes.getLong(bytes, offset + 16),
        Bytes.getLong(bytes, offset + 24));
  }

  /**
   * Parses {@code 0x} followed by exactly 64 hex digits (either case).
   *
   * @throws IllegalArgumentException naming the problem otherwise
   */
  public static TxHash parse(String text) {
    return of(parseBytes(text), 0);
  }

  /**
   * The 32 bytes of {@code 0x} followed by exactly 64 hex digits (either case): what a lookup
   * takes, without a {@code TxHash} in between.
   *
   * @throws IllegalArgumentException naming the problem otherwise
   */
  public static byte[] parseBytes(String text) {
    String problem = problem(text);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    return HEX.parseHex(text, 2, 66);
  }

  /**
   * Why {@code text} is not {@code 0x} + 64 hex digits, or {@code null} when it is. WHY strict:
   * nodes accept a hash without {@code 0x}, but an API that guesses hides client bugs.
   */
  public static @Nullable String problem(String text) {
    if (text == null) {
      return "missing hash";
    }
    if (!text.startsWith("0x") && !text.startsWith("0X")) {
      return "a hash starts with 0x";
    }
    if (text.length() != 66) {
      return "a hash is 0x followed by 64 hex digits, got "
          + (text.length() - 2)
          + " characters after 0x";
    }
    for (int i = 2; i < 66; i++) {
      if (!HexFormat.isHexDigit(text.charAt(i))) {
        return "not a hex digit at position " + i + ": '" + text.charAt(i) + "'";
      }
    }
    return null;
  }

  /** Writes the 32 bytes to {@code out[offset .. offset + 32)}. */
  public void copyTo(byte[] out, int offset) {
    Bytes.putLong(out, offset, a);
    Bytes.putLong(out, offset + 8, b);
    Bytes.putLong(out, offset + 16, c);
    Bytes.putLong(out, offset + 24, d);
  }

  /** The 32 bytes. */
  public byte[] toBytes() {
    byte[] out = new byte[BYTES];
    copyTo(out, 0);
    return out;
  }

  /** {@code 0x} + 64 lower-case hex digits. */
  public String hex() {
    return "0x" + HEX.formatHex(toBytes());
  }

  @Override
  public String toString() {
    return hex();
  }
}
