package io.bbfindex.ingest.encoding;

import static io.bbfindex.filters.Arguments.requireArgument;

import java.util.Arrays;

/**
 * A 32-byte txid or block hash in Bitcoin's internal byte order, usable as a map key. The bytes are
 * SHA-256d output, already uniformly random, so the hash code is simply their first four bytes.
 */
public final class Hash32 {
  public static final int BYTES = 32;

  private final byte[] internal;

  private Hash32(byte[] internal) {
    this.internal = internal;
  }

  /**
   * @throws IllegalArgumentException if {@code internal} is not 32 bytes
   */
  public static Hash32 ofInternal(byte[] internal) {
    requireArgument(internal.length == BYTES, "a hash must be 32 bytes", internal.length);
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
    return new Hash32(HashKeys.fromDisplayHex("hash", hex));
  }

  /** A copy of the internal-order bytes. */
  public byte[] internal() {
    return internal.clone();
  }

  public String displayHex() {
    return HashKeys.toDisplayHex(internal);
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
