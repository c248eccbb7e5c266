package io.bbfindex.ingest.txindex;

/**
 * SipHash-1-3-UJ, the keyed hash Bitcoin Core (>= v32, PR #35531) uses to derive the 40-bit prefix
 * of a txid in its hashed txindex. No maintained Java library has this variant, so it is written
 * out here, exactly as {@code BITCOIN-FORMATS.md} §3.5 reads it from Core's source:
 *
 * <ul>
 *   <li>the standard SipHash initialisation of (k0, k1) and the standard SipRound;
 *   <li>the 32-byte txid (internal byte order) is ONE "jumbo" block of four little-endian uint64
 *       words d0..d3, absorbed with a single round: {@code v3^=d0; v0^=d1; v1^=d2; v2^=d3;
 *       SipRound; v0^=d0; v1^=d1; v2^=d2; v3^=d3} ("1" compression round, "UJ" = uint256 jumbo);
 *   <li>no length/padding block;
 *   <li>finalisation {@code v2 ^= 0x6465646461706e75} (not SipHash's 0xff) and three SipRounds
 *       ("3"), result {@code v0^v1^v2^v3}.
 * </ul>
 *
 * Checked against real data: every {@code 'x'} key of the Core 31.99 fixtures is recomputed from
 * its txid and the index's salt (see {@code HashedTxidHashTest}).
 */
public final class SipHash13Uj {

  private final long k0;
  private final long k1;

  /** A hasher for the salt {@code (k0, k1)} read from the index's {@code txid_hash_salt} record. */
  public SipHash13Uj(long k0, long k1) {
    this.k0 = k0;
    this.k1 = k1;
  }

  public long k0() {
    return k0;
  }

  public long k1() {
    return k1;
  }

  /**
   * The 64-bit hash of {@code txid[offset .. offset+32)} (internal byte order).
   *
   * @throws ArrayIndexOutOfBoundsException if fewer than 32 bytes follow {@code offset}
   */
  public long hash(byte[] txid, int offset) {
    long d0 = le64(txid, offset);
    long d1 = le64(txid, offset + 8);
    long d2 = le64(txid, offset + 16);
    long d3 = le64(txid, offset + 24);
    long v0 = k0 ^ 0x736f6d6570736575L;
    long v1 = k1 ^ 0x646f72616e646f6dL;
    long v2 = k0 ^ 0x6c7967656e657261L;
    long v3 = k1 ^ 0x7465646279746573L;

    v3 ^= d0;
    v0 ^= d1;
    v1 ^= d2;
    v2 ^= d3;
    // one SipRound
    v0 += v1;
    v1 = Long.rotateLeft(v1, 13);
    v1 ^= v0;
    v0 = Long.rotateLeft(v0, 32);
    v2 += v3;
    v3 = Long.rotateLeft(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = Long.rotateLeft(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = Long.rotateLeft(v1, 17);
    v1 ^= v2;
    v2 = Long.rotateLeft(v2, 32);
    v0 ^= d0;
    v1 ^= d1;
    v2 ^= d2;
    v3 ^= d3;

    v2 ^= 0x6465646461706e75L;
    for (int i = 0; i < 3; i++) {
      v0 += v1;
      v1 = Long.rotateLeft(v1, 13);
      v1 ^= v0;
      v0 = Long.rotateLeft(v0, 32);
      v2 += v3;
      v3 = Long.rotateLeft(v3, 16);
      v3 ^= v2;
      v0 += v3;
      v3 = Long.rotateLeft(v3, 21);
      v3 ^= v0;
      v2 += v1;
      v1 = Long.rotateLeft(v1, 17);
      v1 ^= v2;
      v2 = Long.rotateLeft(v2, 32);
    }
    return v0 ^ v1 ^ v2 ^ v3;
  }

  /** The 40-bit key prefix of a txid: the top 40 bits of {@link #hash}, as a non-negative long. */
  public long prefix40(byte[] txid, int offset) {
    return hash(txid, offset) >>> 24;
  }

  private static long le64(byte[] b, int o) {
    return io.bbfindex.ingest.encoding.LittleEndian.int64(b, o);
  }
}
