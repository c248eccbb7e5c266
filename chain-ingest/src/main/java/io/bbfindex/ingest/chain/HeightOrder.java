package io.bbfindex.ingest.chain;

import io.bbfindex.ingest.encoding.LittleEndian;
import io.bbfindex.ingest.records.BlockHashKey;
import io.bbfindex.ingest.records.DiskBlockIndex;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
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
 */
final class HeightOrder {

  /** A bucket with more blocks than this is not searched linearly. */
  private static final int MAX_LINEAR_BUCKET = 8;

  private final DiskBlockIndex[] blocks;

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

  private HeightOrder(DiskBlockIndex[] blocks, int @Nullable [] start, int minHeight) {
    this.blocks = blocks;
    this.start = start;
    this.minHeight = minHeight;
    int n = blocks.length;
    links = new byte[64 * n];
    fields = new int[4 * n];
  }

  /** Puts record {@code b} at position {@code i}. */
  private void place(int i, DiskBlockIndex b) {
    blocks[i] = b;
    System.arraycopy(b.hash(), 0, links, 64 * i, 32);
    System.arraycopy(b.header(), 4, links, 64 * i + 32, 32);
    fields[4 * i] = b.height();
    fields[4 * i + 1] = LittleEndian.int32(b.header(), 72);
    fields[4 * i + 2] = b.status();
    fields[4 * i + 3] = b.txCount();
  }

  static HeightOrder of(Collection<DiskBlockIndex> records) {
    DiskBlockIndex[] in = records.toArray(new DiskBlockIndex[0]);
    int min = Integer.MAX_VALUE;
    int max = Integer.MIN_VALUE;
    for (DiskBlockIndex b : in) {
      min = Math.min(min, b.height());
      max = Math.max(max, b.height());
    }
    long span = in.length == 0 ? 0 : (long) max - min + 1;
    if (span > 2L * in.length + 16) {
      // a garbled height: buckets would take an array as wide as the spread
      DiskBlockIndex[] sorted = in.clone();
      Arrays.sort(sorted, Comparator.comparingInt(DiskBlockIndex::height)); // stable
      HeightOrder o = new HeightOrder(new DiskBlockIndex[in.length], null, 0);
      for (int i = 0; i < sorted.length; i++) {
        o.place(i, sorted[i]);
      }
      return o;
    }
    int[] start = new int[(int) span + 1];
    for (DiskBlockIndex b : in) {
      start[b.height() - min + 1]++;
    }
    for (int h = 1; h < start.length; h++) {
      start[h] += start[h - 1];
    }
    int[] next = Arrays.copyOf(start, start.length);
    HeightOrder o = new HeightOrder(new DiskBlockIndex[in.length], start, min);
    for (DiskBlockIndex b : in) {
      o.place(next[b.height() - min]++, b);
    }
    return o;
  }

  int size() {
    return blocks.length;
  }

  /** The {@code i}-th record by ascending height. */
  DiskBlockIndex get(int i) {
    return blocks[i];
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
      m = HashMap.newHashMap(blocks.length);
      for (int j = 0; j < blocks.length; j++) {
        m.put(BlockHashKey.of(blocks[j].hash()), j);
      }
      byHash = m;
    }
    return m;
  }

  private static final byte[] ZERO = new byte[32];
}
