package io.bbfindex.ingest.ownindex;

import io.bbfindex.filters.hash.Murmur3;
import java.util.Arrays;

/**
 * The keys of one shard with their values, in flat arrays (no object per key), and a priority per
 * key that decides which position a txid stored twice keeps: a txid can be in a stale block and in
 * the active chain (a reorg that mined it again), or twice in the active chain (the BIP30 duplicate
 * coinbases of mainnet heights 91722/91812 and 91842/91880, where Core's txindex, written in chain
 * order, keeps the later one). A higher priority wins.
 */
final class ShardKeys {

  private long[] k0;
  private long[] k1;
  private long[] values;
  private long[] priorities;
  private int size;

  ShardKeys(int capacity) {
    int c = Math.max(capacity, 4);
    k0 = new long[c];
    k1 = new long[c];
    values = new long[c];
    priorities = new long[c];
  }

  void add(long key0, long key1, long value, long priority) {
    if (size == k0.length) {
      int c = Math.max(8, size + (size >> 1));
      k0 = Arrays.copyOf(k0, c);
      k1 = Arrays.copyOf(k1, c);
      values = Arrays.copyOf(values, c);
      priorities = Arrays.copyOf(priorities, c);
    }
    k0[size] = key0;
    k1[size] = key1;
    values[size] = value;
    priorities[size] = priority;
    size++;
  }

  int size() {
    return size;
  }

  long k0(int i) {
    return k0[i];
  }

  long k1(int i) {
    return k1[i];
  }

  long value(int i) {
    return values[i];
  }

  /**
   * Keeps one entry per key, the one of highest priority (the first of equals), through an
   * open-addressing table of key indices; the kept entries keep their order.
   *
   * @return how many entries were dropped
   */
  int removeDuplicates() {
    int tableSize = Integer.highestOneBit(Math.max(4, size) * 2) * 2;
    int[] table = new int[tableSize]; // index + 1; 0 = empty
    boolean[] dropped = new boolean[size];
    int drops = 0;
    for (int i = 0; i < size; i++) {
      int t = (int) Murmur3.fmix64(k0[i] ^ k1[i]) & (tableSize - 1);
      while (true) {
        int held = table[t] - 1;
        if (held < 0) {
          table[t] = i + 1;
          break;
        }
        if (k0[held] == k0[i] && k1[held] == k1[i]) {
          drops++;
          if (priorities[i] > priorities[held]) {
            dropped[held] = true;
            table[t] = i + 1;
          } else {
            dropped[i] = true;
          }
          break;
        }
        t = (t + 1) & (tableSize - 1);
      }
    }
    if (drops > 0) {
      int w = 0;
      for (int i = 0; i < size; i++) {
        if (!dropped[i]) {
          k0[w] = k0[i];
          k1[w] = k1[i];
          values[w] = values[i];
          priorities[w] = priorities[i];
          w++;
        }
      }
      size = w;
    }
    return drops;
  }
}
