package io.bbfindex.ingest.records;

import io.bbfindex.ingest.encoding.LittleEndian;
import java.util.Arrays;

/**
 * A 32-byte block hash (internal order) as a hash-map key, for the block index's maps of ~950,000
 * blocks on mainnet that {@code NodeIndex.open} fills at every start.
 *
 * <p>Why not {@code ByteBuffer.wrap(hash)}: its hashCode is a 32-step polynomial over every byte,
 * recomputed at each put and get. A block hash's first bytes in internal order are the low bytes of
 * a SHA-256d output (proof of work zeroes only the last, most significant ones), uniformly random,
 * so the first four are a well-mixed hash on their own. A hostile block index could still collide
 * them; the key is {@link Comparable} so that HashMap's treeified bins stay logarithmic then.
 *
 * <p>The array is not copied (as everywhere in the block index, arrays are shared, not modified): a
 * lookup wraps the caller's array for the call only.
 */
public final class BlockHashKey implements Comparable<BlockHashKey> {

  private final byte[] hash;

  private BlockHashKey(byte[] hash) {
    this.hash = hash;
  }

  /**
   * @param hashInternal 32 bytes, kept (not copied)
   */
  public static BlockHashKey of(byte[] hashInternal) {
    if (hashInternal.length != 32) {
      throw new IllegalArgumentException("a block hash is 32 bytes, got " + hashInternal.length);
    }
    return new BlockHashKey(hashInternal);
  }

  @Override
  public int hashCode() {
    return LittleEndian.int32(hash, 0);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BlockHashKey k && Arrays.equals(hash, k.hash);
  }

  @Override
  public int compareTo(BlockHashKey o) {
    return Arrays.compareUnsigned(hash, o.hash);
  }

  @Override
  public String toString() {
    return io.bbfindex.ingest.encoding.HashKeys.toDisplayHex(hash);
  }
}
