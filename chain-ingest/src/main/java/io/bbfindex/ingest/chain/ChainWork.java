package io.bbfindex.ingest.chain;

import java.math.BigInteger;
import org.bitcoinj.base.Sha256Hash;

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
    BigInteger target = compactTarget(nBits);
    if (target.signum() <= 0 || target.bitLength() > 256) {
      return false;
    }
    return Sha256Hash.wrapReversed(hashInternal).toBigInteger().compareTo(target) <= 0;
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
