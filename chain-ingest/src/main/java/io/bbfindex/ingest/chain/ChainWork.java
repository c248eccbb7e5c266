package io.bbfindex.ingest.chain;

import java.math.BigInteger;
import org.bitcoinj.base.internal.ByteUtils;

/** Core's GetBlockProof: the expected number of hashes for a block of a given compact target. */
public final class ChainWork {

  private static final BigInteger TWO_256 = BigInteger.ONE.shiftLeft(256);

  private ChainWork() {}

  /**
   * {@code 2^256 / (target + 1)} for the target encoded in {@code nBits}; 0 for a negative,
   * zero or overflowing (over 256 bits) target, as Core's {@code arith_uint256::SetCompact} flags
   * them and GetBlockProof then returns 0.
   */
  public static BigInteger blockProof(long nBits) {
    BigInteger target = ByteUtils.decodeCompactBits(nBits & 0xFFFF_FFFFL);
    if (target.signum() <= 0 || target.bitLength() > 256) {
      return BigInteger.ZERO;
    }
    return TWO_256.divide(target.add(BigInteger.ONE));
  }
}
