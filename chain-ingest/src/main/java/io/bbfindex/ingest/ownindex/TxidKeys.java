package io.bbfindex.ingest.ownindex;

import io.bbfindex.filters.hash.Murmur3;

/**
 * How a txid becomes the own index's key. A txid is already the output of SHA-256d, so its bytes
 * are uniform: the key is its first 16 bytes (internal order) as two little-endian longs {@code
 * k0}, {@code k1} (128 bits: two different txids share them with probability about 2^-128 a pair,
 * so distinct txids are distinct keys). The shard is the top {@code shardBits} of {@code k0}; the
 * fuse hash mixes both longs with the shard's seed (murmur3's 64-bit finalizer), so a shard that
 * will not peel is built again under another seed with independent slots.
 */
final class TxidKeys {

  private TxidKeys() {}

  static long k0(byte[] txid, int offset) {
    return Murmur3.keyWord(txid, offset, 0);
  }

  static long k1(byte[] txid, int offset) {
    return Murmur3.keyWord(txid, offset, 1);
  }

  /** The shard of a key: the top {@code shardBits} bits of {@code k0} (0 when there is one). */
  static int shard(long k0, int shardBits) {
    return shardBits == 0 ? 0 : (int) (k0 >>> (64 - shardBits));
  }

  /** The 64-bit hash the shard's fuse slots come from. */
  static long hash(long k0, long k1, long seed) {
    return Murmur3.fmix64(k0 + Murmur3.fmix64(k1 ^ seed));
  }
}
