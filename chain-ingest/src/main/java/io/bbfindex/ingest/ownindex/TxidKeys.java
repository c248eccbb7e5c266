package io.bbfindex.ingest.ownindex;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * How a txid becomes the own index's key. A txid is already the output of SHA-256d, so its bytes
 * are uniform: the key is its first 16 bytes (internal order) as two little-endian longs {@code
 * k0}, {@code k1} (128 bits: two different txids share them with probability about 2^-128 a pair,
 * so distinct txids are distinct keys). The shard is the top {@code shardBits} of {@code k0}; the
 * fuse hash mixes both longs with the shard's seed (murmur3's 64-bit finalizer), so a shard that
 * will not peel is built again under another seed with independent slots.
 */
final class TxidKeys {

  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private TxidKeys() {}

  static long k0(byte[] txid, int offset) {
    return (long) LONG_LE.get(txid, offset);
  }

  static long k1(byte[] txid, int offset) {
    return (long) LONG_LE.get(txid, offset + 8);
  }

  /** The shard of a key: the top {@code shardBits} bits of {@code k0} (0 when there is one). */
  static int shard(long k0, int shardBits) {
    return shardBits == 0 ? 0 : (int) (k0 >>> (64 - shardBits));
  }

  /** The 64-bit hash the shard's fuse slots come from. */
  static long hash(long k0, long k1, long seed) {
    return mix(k0 + mix(k1 ^ seed));
  }

  /** murmur3's fmix64: every input bit flips every output bit with probability about 1/2. */
  static long mix(long x) {
    x ^= x >>> 33;
    x *= 0xff51afd7ed558ccdL;
    x ^= x >>> 33;
    x *= 0xc4ceb9fe1a85ec53L;
    x ^= x >>> 33;
    return x;
  }
}
