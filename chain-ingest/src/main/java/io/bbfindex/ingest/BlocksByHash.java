package io.bbfindex.ingest;

import io.bbfindex.ingest.records.BlockHashKey;
import io.bbfindex.ingest.records.BlockInfo;
import io.bbfindex.ingest.records.BlockTable;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The block index's blocks by hash (internal order), as a hash map would answer: for equal hashes,
 * the last block given. Answers a row: a {@link BlockTable}'s ({@link #of(BlockTable)}) or an
 * array's index ({@link #of(BlockInfo[])}).
 *
 * <p>Why not a {@code HashMap}: {@link NodeIndex#open} builds this at every start over ~950,000
 * blocks (mainnet), and a map's 950,000 entries and keys were the hottest frame of that step (~0.3
 * s). The blocks come in the block index's key order, which is ascending hash: then a binary search
 * over them needs no map at all, only each hash's first 8 bytes in a {@code long[]} (one sequential
 * pass to fill, lookups in one compact array). Blocks given in any other order (or with a repeated
 * hash) fall back to the map, so the answer never depends on the order.
 */
final class BlocksByHash {

  /** The rows' hashes, as the lookup reads them. */
  interface Hashes {
    int size();

    /** Whether row {@code r}'s hash is 32 bytes long and above row {@code r - 1}'s (unsigned). */
    boolean ascendingAt(int r);

    /** Row {@code r}'s hash's first 8 bytes, big-endian (a 32-byte hash). */
    long prefix(int r);

    /** Whether row {@code r}'s hash is {@code hash} (32 bytes). */
    boolean hashEquals(int r, byte[] hash);

    /** Row {@code r}'s hash, for the map. */
    byte[] hash(int r);
  }

  private final Hashes hashes;

  /** Row i's hash's first 8 bytes, big-endian (so unsigned order is the hash's order). */
  private final long @Nullable [] prefixes;

  /** The fallback for rows not in strictly ascending hash order; null otherwise. */
  private final @Nullable Map<BlockHashKey, Integer> map;

  /** The blocks {@link #of(BlockInfo[])} was given; null over a table. */
  private final BlockInfo @Nullable [] blocks;

  private BlocksByHash(
      Hashes hashes,
      long @Nullable [] prefixes,
      @Nullable Map<BlockHashKey, Integer> map,
      BlockInfo @Nullable [] blocks) {
    this.hashes = hashes;
    this.prefixes = prefixes;
    this.map = map;
    this.blocks = blocks;
  }

  /** The table's rows (kept, not copied). */
  static BlocksByHash of(BlockTable table) {
    return of(
        new Hashes() {
          @Override
          public int size() {
            return table.size();
          }

          @Override
          public boolean ascendingAt(int r) {
            return r == 0 || table.compareHashes(r - 1, r) < 0;
          }

          @Override
          public long prefix(int r) {
            return table.hashPrefix(r);
          }

          @Override
          public boolean hashEquals(int r, byte[] hash) {
            return table.hashEquals(r, hash, 0);
          }

          @Override
          public byte[] hash(int r) {
            return table.hash(r);
          }
        },
        null);
  }

  /**
   * Over an array of blocks: {@link #block} answers them.
   *
   * @param blocks kept (not copied); block hashes are 32 bytes
   */
  static BlocksByHash of(BlockInfo[] blocks) {
    return of(
        new Hashes() {
          @Override
          public int size() {
            return blocks.length;
          }

          @Override
          public boolean ascendingAt(int r) {
            byte[] h = blocks[r].hash();
            return h.length == BlockTable.HASH_BYTES
                && (r == 0 || Arrays.compareUnsigned(blocks[r - 1].hash(), h) < 0);
          }

          @Override
          public long prefix(int r) {
            return BlockTable.hashPrefix(blocks[r].hash());
          }

          @Override
          public boolean hashEquals(int r, byte[] hash) {
            return Arrays.equals(blocks[r].hash(), hash);
          }

          @Override
          public byte[] hash(int r) {
            return blocks[r].hash();
          }
        },
        blocks);
  }

  private static BlocksByHash of(Hashes hashes, BlockInfo @Nullable [] blocks) {
    int n = hashes.size();
    long[] prefixes = new long[n];
    for (int r = 0; r < n; r++) {
      if (!hashes.ascendingAt(r)) {
        return new BlocksByHash(hashes, null, map(hashes), blocks);
      }
      prefixes[r] = hashes.prefix(r);
    }
    return new BlocksByHash(hashes, prefixes, null, blocks);
  }

  /** What the loader built before: every row put in order, a later equal hash replacing. */
  private static Map<BlockHashKey, Integer> map(Hashes hashes) {
    Map<BlockHashKey, Integer> m = HashMap.newHashMap(hashes.size());
    for (int r = 0; r < hashes.size(); r++) {
      m.put(BlockHashKey.of(hashes.hash(r)), r);
    }
    return m;
  }

  /**
   * The block of {@link #of(BlockInfo[])} with this hash, or null.
   *
   * @param hashInternal 32 bytes, internal order
   * @throws IllegalArgumentException if it is not 32 bytes long
   */
  @Nullable BlockInfo get(byte[] hashInternal) {
    int r = row(hashInternal);
    return r < 0 ? null : Objects.requireNonNull(blocks, "built over a table")[r];
  }

  /**
   * The row of the block with this hash, or -1.
   *
   * @param hashInternal 32 bytes, internal order
   * @throws IllegalArgumentException if it is not 32 bytes long
   */
  int row(byte[] hashInternal) {
    if (map != null) {
      Integer r = map.get(BlockHashKey.of(hashInternal));
      return r == null ? -1 : r;
    }
    if (hashInternal.length != BlockTable.HASH_BYTES) {
      BlockHashKey.of(hashInternal); // throws: the same error as the map's key
    }
    long[] p = Objects.requireNonNull(prefixes);
    long key = BlockTable.hashPrefix(hashInternal);
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
      if (hashes.hashEquals(i, hashInternal)) {
        return i;
      }
    }
    return -1;
  }
}
