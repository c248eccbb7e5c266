package io.bbfindex.ingest.chain;

import java.math.BigInteger;
import org.jspecify.annotations.Nullable;

/** Core's GetBlockProof: the expected number of hashes for a block of a given compact target. */
public final class ChainWork {

  private static final BigInteger TWO_256 = BigInteger.ONE.shiftLeft(256);

  private ChainWork() {}

  /**
   * {@code 2^256 / (target + 1)} for the target encoded in {@code nBits}; 0 for a negative, zero or
   * overflowing (over 256 bits) target, as Core's {@code arith_uint256::SetCompact} flags them and
   * GetBlockProof then returns 0.
   */
  public static BigInteger blockProof(long nBits) {
    BigInteger target = compactTarget(nBits);
    if (target.signum() <= 0 || target.bitLength() > 256) {
      return BigInteger.ZERO;
    }
    return TWO_256.divide(target.add(BigInteger.ONE));
  }

  /**
   * Core's CheckProofOfWork, minus the network's powLimit (unknown here): the target encoded in
   * {@code nBits} is positive and fits 256 bits, and the hash, read as a little-endian number, does
   * not exceed it. Core refuses to load a block index entry that fails this.
   *
   * @param hashInternal the block hash in internal byte order (little-endian number)
   */
  public static boolean meetsTarget(byte[] hashInternal, long nBits) {
    byte[] target = targetLittleEndian(nBits);
    return target != null && atMost(hashInternal, target);
  }

  /**
   * The target of {@code nBits} as 32 bytes little-endian (the hash's order), or null for a
   * negative, zero or overflowing one, which no hash meets.
   */
  static byte @Nullable [] targetLittleEndian(long nBits) {
    BigInteger target = compactTarget(nBits);
    if (target.signum() <= 0 || target.bitLength() > 256) {
      return null;
    }
    byte[] big = target.toByteArray(); // big-endian, maybe with a leading 0 sign byte
    byte[] le = new byte[32];
    for (int i = 0; i < big.length && i < 32; i++) {
      le[i] = big[big.length - 1 - i];
    }
    return le;
  }

  /**
   * Whether the 256-bit little-endian numbers compare {@code hash <= target}: from the most
   * significant byte (the last) down, unsigned; no BigInteger per header.
   */
  static boolean atMost(byte[] hash, byte[] target) {
    for (int i = 31; i >= 0; i--) {
      int c = Integer.compare(hash[i] & 0xFF, target[i] & 0xFF);
      if (c != 0) {
        return c < 0;
      }
    }
    return true;
  }

  /**
   * The target that compact {@code nBits} encodes, as Core's {@code arith_uint256::SetCompact}: the
   * top byte is the size in bytes, the low 23 bits the mantissa, bit 23 the sign. A negative target
   * comes back negative (a set sign bit on a zero mantissa is zero); an overflowing one comes back
   * longer than 256 bits. bitcoinj's public API has no such decoder.
   */
  static BigInteger compactTarget(long nBits) {
    int size = (int) (nBits >>> 24) & 0xFF;
    long mantissa = nBits & 0x007F_FFFFL;
    BigInteger target =
        size <= 3
            ? BigInteger.valueOf(mantissa >>> (8 * (3 - size)))
            : BigInteger.valueOf(mantissa).shiftLeft(8 * (size - 3));
    return (nBits & 0x0080_0000L) != 0 ? target.negate() : target;
  }
}
