package io.bbfindex.ingest.ownindex;

import io.bbfindex.filters.hash.Murmur3;
import java.nio.charset.StandardCharsets;

/**
 * The byte layout of a pruned blocks' fingerprint part, version 1
 * (chain-ingest/OWN-INDEX-FORMAT.md, "Fingerprint parts"), and the fingerprint itself.
 *
 * <p>A slot is a whole little-endian u64: {@code ordinal << 52 | fingerprint}, the ordinal a block
 * of the part's block table ({@value #ORDINAL_BITS} bits: at most {@value #MAX_BLOCKS} blocks a
 * part) and the fingerprint {@value #FINGERPRINT_BITS} bits of a keyed hash of the txid. An unknown
 * txid's three slots XOR to an arbitrary value whose fingerprint equals its own with probability
 * 2^-52 a part probed.
 */
final class FingerprintFormat {

  static final byte[] MAGIC = "BBFOWNFP".getBytes(StandardCharsets.US_ASCII);
  static final int VERSION = 1;
  static final int HEADER_BYTES = 64;
  static final int BLOCK_ENTRY_BYTES = 36;
  static final int FINGERPRINT_BITS = 52;
  static final int ORDINAL_BITS = 64 - FINGERPRINT_BITS;
  static final int MAX_BLOCKS = 1 << ORDINAL_BITS;
  static final long FINGERPRINT_MASK = (1L << FINGERPRINT_BITS) - 1;

  // header fields
  static final int OFF_VERSION = 8;
  static final int OFF_HEADER_LENGTH = 12;
  static final int OFF_FINGERPRINT_BITS = 16;
  static final int OFF_ORDINAL_BITS = 17;
  static final int OFF_SHARD_BITS = 18;
  static final int OFF_BLOCK_COUNT = 20;
  static final int OFF_KEY_COUNT = 24;
  static final int OFF_SALT = 32;
  static final int OFF_TABLE_CRC = 56;
  static final int OFF_HEADER_CRC = 60;

  private FingerprintFormat() {}

  /** Where the shard table starts: after the header and the block table. */
  static long shardTableStart(int blocks) {
    return HEADER_BYTES + (long) BLOCK_ENTRY_BYTES * blocks;
  }

  /** Where the shard data starts. */
  static long dataStart(int blocks, int shards) {
    return shardTableStart(blocks) + (long) OwnIndexFormat.SHARD_ENTRY_BYTES * shards;
  }

  /**
   * The fingerprint of a txid's key: the top 52 bits of a hash keyed by the part's secret {@code
   * salt} (random, in the part's header), mixed differently from the fuse slots' hash ({@link
   * TxidKeys#hash}) so the two are independent. Keyed so that nobody without the file can grind a
   * txid whose fingerprint matches a stored one.
   */
  static long fingerprint(long k0, long k1, long salt) {
    return Murmur3.fmix64(k1 ^ Murmur3.fmix64(k0 + salt)) >>> ORDINAL_BITS;
  }
}
