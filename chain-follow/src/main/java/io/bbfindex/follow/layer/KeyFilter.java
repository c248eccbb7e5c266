package io.bbfindex.follow.layer;

import io.bbfindex.filters.cuckoo.CuckooFilter;
import io.bbfindex.ingest.encoding.Hash32;

/**
 * A cuckoo filter ({@code filters}' own, seeds 001/004) over a set of 32-byte keys whose exact copy
 * the owner keeps: when an insert is refused (the table is full), the filter is rebuilt at twice
 * the size from that copy, so it never loses a key. Not thread-safe; the layers guard it.
 */
final class KeyFilter {
  /** 16-bit fingerprints: about 1.2e-4 false positives at 95 % load. */
  static final int FINGERPRINT_BITS = 16;

  private static final int MIN_BUCKETS = 1 << 10;

  private CuckooFilter filter = new CuckooFilter(MIN_BUCKETS, FINGERPRINT_BITS);

  boolean mightContain(byte[] keys, int offset) {
    return filter.mightContain(keys, offset);
  }

  /** Adds {@code key}; {@code all} is the exact set after the add, used if the table must grow. */
  void add(Hash32 key, Iterable<Hash32> all, int size) {
    if (!filter.add(key.internal(), 0)) {
      rebuild(all, size);
    }
  }

  void remove(Hash32 key) {
    filter.remove(key.internal(), 0);
  }

  /** Adds the key at {@code keys[offset ..]}; {@code false} if the table is full (unchanged). */
  boolean tryAdd(byte[] keys, int offset) {
    return filter.add(keys, offset);
  }

  /** Removes the key at {@code keys[offset ..]}, which must have been added. */
  void remove(byte[] keys, int offset) {
    filter.remove(keys, offset);
  }

  /** A filter sized for {@code table}'s keys and holding exactly them. */
  static KeyFilter holding(TxidTable table) {
    byte[] slots = table.slots();
    KeyFilter f = new KeyFilter();
    f.filter =
        fitting(
            table.size(),
            into -> {
              for (int i = 0; i < table.capacity(); i++) {
                if (table.isUsed(i) && !into.add(slots, i * Hash32.BYTES)) {
                  return false;
                }
              }
              return true;
            });
    return f;
  }

  /** Replaces the filter by one sized for {@code size} keys holding exactly {@code all}. */
  void rebuild(Iterable<Hash32> all, int size) {
    filter =
        fitting(
            size,
            into -> {
              for (Hash32 k : all) {
                if (!into.add(k.internal(), 0)) {
                  return false;
                }
              }
              return true;
            });
  }

  /** Puts every key of a set into a filter; {@code false} at the first one it refuses. */
  @FunctionalInterface
  private interface KeySource {
    boolean addAllTo(CuckooFilter into);
  }

  /**
   * A filter sized for {@code size} keys that takes all of {@code keys}: twice the buckets each
   * time an insert is refused, so no key is ever lost.
   */
  private static CuckooFilter fitting(int size, KeySource keys) {
    for (int buckets = bucketsFor(size); ; buckets *= 2) {
      CuckooFilter sized = new CuckooFilter(buckets, FINGERPRINT_BITS);
      if (keys.addAllTo(sized)) {
        return sized;
      }
    }
  }

  private static int bucketsFor(int size) {
    return Math.max(MIN_BUCKETS, CuckooFilter.bucketsFor(Math.max(1, 2L * size)));
  }

  double load() {
    return filter.load();
  }

  long bitSize() {
    return filter.bitSize();
  }
}
