package io.bbfindex.ingest;

import io.bbfindex.ingest.records.BlockHashKey;
import io.bbfindex.ingest.records.BlockInfo;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The block index's blocks by hash (internal order), as a hash map would answer: for equal hashes,
 * the last block given.
 *
 * <p>Why not a {@code HashMap}: {@link NodeIndex#open} builds this at every start over ~950,000
 * blocks (mainnet), and a map's 950,000 entries and keys were the hottest frame of that step (~0.3
 * s). The blocks come in the block index's key order, which is ascending hash: then a binary search
 * over them needs no map at all, only each hash's first 8 bytes in a {@code long[]} (one sequential
 * pass to fill, lookups in one compact array). Blocks given in any other order (or with a repeated
 * hash) fall back to the map, so the answer never depends on the order.
 */
final class BlocksByHash {

  private static final VarHandle BIG_ENDIAN_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  /** Ascending by hash, strictly, when {@link #prefixes} is set. */
  private final BlockInfo[] blocks;

  /** Block i's hash's first 8 bytes, big-endian (so unsigned order is the hash's order). */
  private final long @Nullable [] prefixes;

  /** The fallback for blocks not in strictly ascending hash order; null otherwise. */
  private final @Nullable Map<BlockHashKey, BlockInfo> map;

  private BlocksByHash(
      BlockInfo[] blocks, long @Nullable [] prefixes, @Nullable Map<BlockHashKey, BlockInfo> map) {
    this.blocks = blocks;
    this.prefixes = prefixes;
    this.map = map;
  }

  /**
   * @param blocks kept (not copied); block hashes are 32 bytes
   */
  static BlocksByHash of(BlockInfo[] blocks) {
    long[] prefixes = new long[blocks.length];
    byte[] previous = null;
    for (int i = 0; i < blocks.length; i++) {
      byte[] h = blocks[i].hash();
      if (h.length != 32 || (previous != null && Arrays.compareUnsigned(previous, h) >= 0)) {
        return new BlocksByHash(blocks, null, map(blocks));
      }
      prefixes[i] = (long) BIG_ENDIAN_LONG.get(h, 0);
      previous = h;
    }
    return new BlocksByHash(blocks, prefixes, null);
  }

  /** What the loader built before: every block put in order, a later equal hash replacing. */
  private static Map<BlockHashKey, BlockInfo> map(BlockInfo[] blocks) {
    Map<BlockHashKey, BlockInfo> m = HashMap.newHashMap(blocks.length);
    for (BlockInfo b : blocks) {
      m.put(BlockHashKey.of(b.hash()), b);
    }
    return m;
  }

  /**
   * The block with this hash, or null.
   *
   * @param hashInternal 32 bytes, internal order
   * @throws IllegalArgumentException if it is not 32 bytes long
   */
  @Nullable BlockInfo get(byte[] hashInternal) {
    if (map != null) {
      return map.get(BlockHashKey.of(hashInternal));
    }
    if (hashInternal.length != 32) {
      BlockHashKey.of(hashInternal); // throws: the same error as the map's key
    }
    long[] p = java.util.Objects.requireNonNull(prefixes);
    long key = (long) BIG_ENDIAN_LONG.get(hashInternal, 0);
    // the first index whose prefix is not below the key's
    int lo = 0;
    int hi = p.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Long.compareUnsigned(p[mid], key) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    // hashes sharing their first 8 bytes: a handful at most in a sound index
    for (int i = lo; i < p.length && p[i] == key; i++) {
      if (Arrays.equals(blocks[i].hash(), hashInternal)) {
        return blocks[i];
      }
    }
    return null;
  }
}
