package io.bbfindex.ingest.encoding;

import org.bitcoinj.base.internal.ByteUtils;

/** Display forms of 32-byte hashes, which are kept in internal (SHA-256d output) order. */
public final class Hashes {

  private Hashes() {}

  /** The hex explorers and RPC show: the internal bytes reversed. */
  public static String displayHex(byte[] internal) {
    return ByteUtils.formatHex(ByteUtils.reverseBytes(internal));
  }
}
