package io.bbfindex.ingest.chain;

import io.bbfindex.ingest.records.BlockHashKey;
import io.bbfindex.ingest.records.BlockTable;
import io.bbfindex.ingest.records.DiskBlockIndex;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The block index's records by ascending height, records of equal height in their input order (as a
 * stable sort), and each record's parent found by hash.
 *
 * <p>Why not a sort and a hash map: at every start of serve, {@link ActiveChain#compute} orders
 * ~950,000 records (mainnet); a comparison sort chasing a pointer per comparison and a map of every
 * hash were most of its time. Heights are bounded by the record count in a sound index (every
 * block's parent is in it), so a counting sort buckets them in two passes, and a parent is looked
 * for among the records one height below, a bucket of one block except at forks. Only when it is
 * not there (the genesis, a block whose parent is missing or whose height is garbled) or the bucket
 * is large (many forks at one height) is a map of all hashes built, once, and asked; so the parent
 * found is always the record with that hash, wherever it is, as a map alone would find it. Heights
 * spread wider than the record count (garbled) fall back to the stable sort and the map.
 *
 * <p>The records are a {@link BlockTable}'s rows: the table is read in its order, sequentially, and
 * no record object is made.
 */
final class HeightOrder {

  /** A bucket with more blocks than this is not searched linearly. */
  private static final int MAX_LINEAR_BUCKET = 8;

  private final BlockTable table;

  /** The table's row at each position. */
  private final int[] rows;

  /**
   * Records of height {@code minHeight + h} are at {@code [start[h], start[h + 1])}; null after the
   * fallback sort.
   */
  private final int @Nullable [] start;

  private final int minHeight;

  /**
   * Record i's hash at {@code [64 i, 64 i + 32)}, its hashPrev (header bytes 4..36) right after.
   * Side by side, and the ints below too, because {@link #of} writes each record to a position
   * given by its height, far from the last one: a cache miss per line written, at every start for
   * each of 950,000 records (mainnet), so the fewer lines per record the better.
   */
  private final byte[] links;

  /** Record i's height, nBits, status and nTx at {@code [4 i, 4 i + 4)}. */
  private final int[] fields;

  private @Nullable Map<BlockHashKey, Integer> byHash;

  private HeightOrder(BlockTable table, int @Nullable [] start, int minHeight) {
    this.table = table;
    this.start = start;
    this.minHeight = minHeight;
    int n = table.size();
    rows = new int[n];
    links = new byte[64 * n];
    fields = new int[4 * n];
  }

  /** Puts the table's row {@code r} at position {@code i}. */
  private void place(int i, int r) {
    rows[i] = r;
    table.copyHash(r, links, 64 * i);
    table.copyHeader(r, 4, links, 64 * i + 32, 32);
    fields[4 * i] = table.height(r);
    fields[4 * i + 1] = table.bits(r);
    fields[4 * i + 2] = table.status(r);
    fields[4 * i + 3] = table.txCount(r);
  }

  static HeightOrder of(Collection<DiskBlockIndex> records) {
    return of(BlockTable.of(records));
  }

  static HeightOrder of(BlockTable table) {
    int n = table.size();
    int min = Integer.MAX_VALUE;
    int max = Integer.MIN_VALUE;
    for (int r = 0; r < n; r++) {
      min = Math.min(min, table.height(r));
      max = Math.max(max, table.height(r));
    }
    long span = n == 0 ? 0 : (long) max - min + 1;
    if (span > 2L * n + 16) {
      // a garbled height: buckets would take an array as wide as the spread
      Integer[] sorted = new Integer[n];
      Arrays.setAll(sorted, r -> r);
      Arrays.sort(sorted, (a, b) -> Integer.compare(table.height(a), table.height(b))); // stable
      HeightOrder o = new HeightOrder(table, null, 0);
      for (int i = 0; i < n; i++) {
        o.place(i, sorted[i]);
      }
      return o;
    }
    int[] start = new int[(int) span + 1];
    for (int r = 0; r < n; r++) {
      start[table.height(r) - min + 1]++;
    }
    for (int h = 1; h < start.length; h++) {
      start[h] += start[h - 1];
    }
    int[] next = Arrays.copyOf(start, start.length);
    HeightOrder o = new HeightOrder(table, start, min);
    for (int r = 0; r < n; r++) {
      o.place(next[table.height(r) - min]++, r);
    }
    return o;
  }

  int size() {
    return rows.length;
  }

  /** The table's row at the {@code i}-th position by ascending height. */
  int row(int i) {
    return rows[i];
  }

  /** The {@code i}-th record by ascending height. */
  DiskBlockIndex get(int i) {
    return table.record(rows[i]);
  }

  int height(int i) {
    return fields[4 * i];
  }

  /** The header's nBits, unsigned. */
  long bits(int i) {
    return Integer.toUnsignedLong(fields[4 * i + 1]);
  }

  int status(int i) {
    return fields[4 * i + 2];
  }

  int txCount(int i) {
    return fields[4 * i + 3];
  }

  /**
   * The index of the record whose hash is record {@code i}'s hashPrev, or -1 if there is none. No
   * block hashes to zero, so the genesis's zero hashPrev is answered without a look.
   */
  int parentOf(int i) {
    int prev = 64 * i + 32;
    if (Arrays.equals(links, prev, prev + 32, ZERO, 0, 32)) {
      return -1;
    }
    if (start != null) {
      long below = (long) height(i) - 1 - minHeight;
      if (below >= 0 && below < start.length - 1) {
        int from = start[(int) below];
        int to = start[(int) below + 1];
        if (to - from <= MAX_LINEAR_BUCKET) {
          for (int j = from; j < to; j++) {
            if (Arrays.equals(links, 64 * j, 64 * j + 32, links, prev, prev + 32)) {
              return j;
            }
          }
        }
      }
    }
    Integer j = byHash().get(BlockHashKey.of(Arrays.copyOfRange(links, prev, prev + 32)));
    return j == null ? -1 : j;
  }

  private Map<BlockHashKey, Integer> byHash() {
    Map<BlockHashKey, Integer> m = byHash;
    if (m == null) {
      m = HashMap.newHashMap(rows.length);
      for (int j = 0; j < rows.length; j++) {
        m.put(BlockHashKey.of(Arrays.copyOfRange(links, 64 * j, 64 * j + 32)), j);
      }
      byHash = m;
    }
    return m;
  }

  private static final byte[] ZERO = new byte[32];
}
