package io.bbfindex.ingest.leveldb;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * SHA-256 over a sequence of parts, each length-prefixed so that no two different sequences feed
 * the hash the same bytes ({@code "ab" + "c"} and {@code "a" + "bc"} differ).
 */
final class ContentDigest {
  private final MessageDigest sha256;
  private final byte[] scratch = new byte[Long.BYTES];

  ContentDigest() {
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** Adds {@code bytes}, prefixed by their length. */
  ContentDigest part(byte[] bytes) {
    number(bytes.length);
    sha256.update(bytes);
    return this;
  }

  /** Adds {@code n} as 8 bytes, big-endian. */
  ContentDigest number(long n) {
    for (int i = 0; i < Long.BYTES; i++) {
      scratch[i] = (byte) (n >>> (56 - 8 * i));
    }
    sha256.update(scratch);
    return this;
  }

  /** The digest; this object is not to be used afterwards. */
  byte[] finish() {
    return sha256.digest();
  }
}
