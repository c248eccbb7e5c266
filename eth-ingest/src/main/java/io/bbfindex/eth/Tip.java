package io.bbfindex.eth;

import io.bbfindex.filters.cuckoo.CuckooFilter;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.StampedLock;

/**
 * The blocks above the last complete range, linked by parent hash: their transaction hashes in a
 * cuckoo filter (it supports deletion, which a reorg needs) in front of an exact map to their
 * location, and in front of both the {@link SeenKeys} bits, which answer most negatives in one
 * load. The one follower thread changes it under the write lock.
 *
 * <p>WHY a {@link StampedLock}: nearly every lookup is a filter "no", which is read optimistically
 * (no write to shared memory, so lookups on several cores do not contend on the lock's cache line
 * as they do on a read lock's counter) and taken only if no write happened meanwhile; a "maybe", or
 * a probe a write overlapped, takes the read lock for the filter and the map. A probe overlapping a
 * write may read a half-moved fingerprint but cannot fail: the filter object's table never changes
 * size (a larger filter is a new object, read once into a local).
 */
final class Tip {
  private static final int FINGERPRINT_BITS = 16;
  private final StampedLock lock = new StampedLock();
  private final ArrayDeque<BlockTxs> blocks = new ArrayDeque<>();
  private final Map<TxHash, EthTxLocation> exact = new HashMap<>();
  private CuckooFilter filter = CuckooFilter.forKeys(1 << 12, FINGERPRINT_BITS);

  /**
   * Lookups' first test, read without the lock: each block's keys are in it before anything (the
   * pending set losing them, the history gaining them) tells a lookup they are in the tip.
   */
  private volatile SeenKeys seen = SeenKeys.of(List.of());

  /** The location of the key, or empty: the cuckoo filter answers most misses without the map. */
  Optional<EthTxLocation> find(byte[] key, int offset) {
    if (!seen.mightContain(key, offset)) {
      return Optional.empty();
    }
    long stamp = lock.tryOptimisticRead();
    if (stamp != 0) {
      CuckooFilter f = filter;
      boolean maybe = f.mightContain(key, offset);
      if (!maybe && lock.validate(stamp)) {
        return Optional.empty();
      }
    }
    stamp = lock.readLock();
    try {
      if (!filter.mightContain(key, offset)) {
        return Optional.empty();
      }
      return Optional.ofNullable(exact.get(TxHash.of(key, offset)));
    } finally {
      lock.unlockRead(stamp);
    }
  }

  boolean contains(TxHash tx) {
    long stamp = lock.readLock();
    try {
      return exact.containsKey(tx);
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /** The newest block, or empty. */
  Optional<BlockTxs> last() {
    long stamp = lock.readLock();
    try {
      return Optional.ofNullable(blocks.peekLast());
    } finally {
      lock.unlockRead(stamp);
    }
  }

  Optional<BlockTxs> first() {
    long stamp = lock.readLock();
    try {
      return Optional.ofNullable(blocks.peekFirst());
    } finally {
      lock.unlockRead(stamp);
    }
  }

  int blockCount() {
    long stamp = lock.readLock();
    try {
      return blocks.size();
    } finally {
      lock.unlockRead(stamp);
    }
  }

  int txCount() {
    long stamp = lock.readLock();
    try {
      return exact.size();
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /**
   * Appends {@code b}, which must follow the newest block (number and parent hash).
   *
   * @throws IllegalArgumentException if it does not
   */
  void append(BlockTxs b) {
    long stamp = lock.writeLock();
    try {
      BlockTxs last = blocks.peekLast();
      if (last != null
          && (b.number() != last.number() + 1 || !b.parentHash().equals(last.hash()))) {
        throw new IllegalArgumentException(
            "block " + b.number() + " does not follow tip block " + last.number());
      }
      blocks.addLast(b);
      byte[] key = new byte[TxHash.BYTES];
      for (int i = 0; i < b.txs().size(); i++) {
        TxHash tx = b.txs().get(i);
        exact.put(tx, new EthTxLocation(b.number(), b.hash(), i));
        tx.copyTo(key, 0);
        if (!filter.add(key, 0)) {
          rebuildFilter(2 * filter.bucketCount());
        }
      }
      seen = seen.plus(b.txs(), exact.keySet());
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /** Removes the newest block (a reorg took it) and its transactions; returns it. */
  BlockTxs removeLast() {
    long stamp = lock.writeLock();
    try {
      BlockTxs b = blocks.removeLast();
      forget(b);
      return b;
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /** Removes the blocks below {@code number} (they are in the history now). */
  void removeBelow(long number) {
    long stamp = lock.writeLock();
    try {
      while (!blocks.isEmpty() && blocks.peekFirst().number() < number) {
        forget(blocks.removeFirst());
      }
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  void clear() {
    long stamp = lock.writeLock();
    try {
      blocks.clear();
      exact.clear();
      filter = CuckooFilter.forKeys(1 << 12, FINGERPRINT_BITS);
      seen = SeenKeys.of(List.of());
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /** The blocks from {@code from} on (inclusive), oldest first. */
  List<BlockTxs> blocksFrom(long from) {
    long stamp = lock.readLock();
    try {
      return blocks.stream().filter(b -> b.number() >= from).toList();
    } finally {
      lock.unlockRead(stamp);
    }
  }

  private void forget(BlockTxs b) {
    byte[] key = new byte[TxHash.BYTES];
    for (TxHash tx : b.txs()) {
      EthTxLocation at = exact.get(tx);
      // A hash is in the map once; remove it only with the block that holds it.
      if (at != null && at.blockHash().equals(b.hash())) {
        exact.remove(tx);
        tx.copyTo(key, 0);
        filter.remove(key, 0);
      }
    }
  }

  /** The filter refused a key (full): a larger one from the exact map, which holds every key. */
  private void rebuildFilter(int buckets) {
    CuckooFilter bigger =
        new CuckooFilter(
            Math.max(buckets, CuckooFilter.bucketsFor(2L * exact.size())), FINGERPRINT_BITS);
    byte[] key = new byte[TxHash.BYTES];
    for (TxHash tx : exact.keySet()) {
      tx.copyTo(key, 0);
      if (!bigger.add(key, 0)) {
        rebuildFilter(2 * bigger.bucketCount());
        return;
      }
    }
    filter = bigger;
  }
}
