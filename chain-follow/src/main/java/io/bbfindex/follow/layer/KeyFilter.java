package io.bbfindex.follow.layer;

import io.bbfindex.filters.peers.CuckooFilter;
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

  /** Replaces the filter by one sized for {@code size} keys holding exactly {@code all}. */
  void rebuild(Iterable<Hash32> all, int size) {
    int buckets = Math.max(MIN_BUCKETS, CuckooFilter.bucketsFor(Math.max(1, 2L * size)));
    while (true) {
      CuckooFilter bigger = new CuckooFilter(buckets, FINGERPRINT_BITS);
      boolean complete = true;
      for (Hash32 k : all) {
        if (!bigger.add(k.internal(), 0)) {
          complete = false;
          break;
        }
      }
      if (complete) {
        filter = bigger;
        return;
      }
      buckets *= 2;
    }
  }

  double load() {
    return filter.load();
  }

  long bitSize() {
    return filter.bitSize();
  }
}
