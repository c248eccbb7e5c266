package io.bbfindex.follow;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * A 32-byte txid or block hash in Bitcoin's internal byte order, usable as a map key. The bytes are
 * SHA-256d output, already uniformly random, so the hash code is simply their first four bytes.
 */
public final class Hash32 {
  public static final int BYTES = 32;
  private static final HexFormat HEX = HexFormat.of();

  private final byte[] internal;

  private Hash32(byte[] internal) {
    this.internal = internal;
  }

  /**
   * @throws IllegalArgumentException if {@code internal} is not 32 bytes
   */
  public static Hash32 ofInternal(byte[] internal) {
    if (internal.length != BYTES) {
      throw new IllegalArgumentException("a hash is 32 bytes: " + internal.length);
    }
    return new Hash32(internal.clone());
  }

  /** The 32 bytes at {@code keys[offset ..]}, internal order. */
  public static Hash32 ofInternal(byte[] keys, int offset) {
    return new Hash32(Arrays.copyOfRange(keys, offset, offset + BYTES));
  }

  /**
   * The hex RPC and explorers show (byte-reversed).
   *
   * @throws IllegalArgumentException if it is not 64 hex digits
   */
  public static Hash32 ofDisplayHex(String hex) {
    if (hex.length() != 2 * BYTES) {
      throw new IllegalArgumentException("a hash is 64 hex digits: " + hex);
    }
    return new Hash32(reverse(HEX.parseHex(hex)));
  }

  /** A copy of the internal-order bytes. */
  public byte[] internal() {
    return internal.clone();
  }

  /** The internal bytes without a copy, for filter probes; callers must not modify them. */
  byte[] internalShared() {
    return internal;
  }

  public String displayHex() {
    return HEX.formatHex(reverse(internal));
  }

  private static byte[] reverse(byte[] b) {
    byte[] r = new byte[b.length];
    for (int i = 0; i < b.length; i++) {
      r[i] = b[b.length - 1 - i];
    }
    return r;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Hash32 h && Arrays.equals(internal, h.internal);
  }

  @Override
  public int hashCode() {
    return (internal[0] & 0xff)
        | (internal[1] & 0xff) << 8
        | (internal[2] & 0xff) << 16
        | internal[3] << 24;
  }

  @Override
  public String toString() {
    return displayHex();
  }
}
