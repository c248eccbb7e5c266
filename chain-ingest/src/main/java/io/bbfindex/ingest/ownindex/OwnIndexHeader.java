package io.bbfindex.ingest.ownindex;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * What an own index file says about itself (chain-ingest/OWN-INDEX-FORMAT.md): how its values are
 * packed, how many shards and keys it has, and which chain it was built from.
 *
 * @param packing how a value splits into block file and offset
 * @param shardBits the shard of a key is the top {@code shardBits} of its {@code k0} (0..24)
 * @param keyCount distinct txids stored
 * @param chainDigest SHA-256 over the blocks with data the index was built from ({@link
 *     ChainDigest}): a node whose digest differs has blocks the index lacks
 * @param tipHash the active tip at build time, internal order
 * @param tipHeight its height
 */
public record OwnIndexHeader(
    PositionPacking packing,
    int shardBits,
    long keyCount,
    byte[] chainDigest,
    byte[] tipHash,
    int tipHeight) {

  static final int MAX_SHARD_BITS = 24;

  public OwnIndexHeader {
    if (shardBits < 0 || shardBits > MAX_SHARD_BITS) {
      throw new IllegalArgumentException("shardBits must be in [0, 24]: " + shardBits);
    }
    if (chainDigest.length != 32 || tipHash.length != 32) {
      throw new IllegalArgumentException("digest and tip hash are 32 bytes");
    }
    chainDigest = chainDigest.clone();
    tipHash = tipHash.clone();
  }

  int shards() {
    return 1 << shardBits;
  }

  @Override
  public byte[] chainDigest() {
    return chainDigest.clone();
  }

  @Override
  public byte[] tipHash() {
    return tipHash.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OwnIndexHeader h
        && packing.equals(h.packing)
        && shardBits == h.shardBits
        && keyCount == h.keyCount
        && Arrays.equals(chainDigest, h.chainDigest)
        && Arrays.equals(tipHash, h.tipHash)
        && tipHeight == h.tipHeight;
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(chainDigest) * 31 + Long.hashCode(keyCount);
  }

  @Override
  public String toString() {
    return "OwnIndexHeader["
        + packing
        + ", shardBits="
        + shardBits
        + ", keys="
        + keyCount
        + ", digest="
        + HexFormat.of().formatHex(chainDigest)
        + ", tipHeight="
        + tipHeight
        + "]";
  }
}
