package io.bbfindex.eth;

import io.bbfindex.filters.peers.CuckooFilter;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The blocks above the last complete range, linked by parent hash: their transaction hashes in a
 * cuckoo filter (it supports deletion, which a reorg needs) in front of an exact map to their
 * location. Lookups take the read lock; the one follower thread changes it under the write lock.
 */
final class Tip {
  private static final int FINGERPRINT_BITS = 16;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final ArrayDeque<BlockTxs> blocks = new ArrayDeque<>();
  private final Map<TxHash, EthTxLocation> exact = new HashMap<>();
  private CuckooFilter filter = CuckooFilter.forKeys(1 << 12, FINGERPRINT_BITS);

  /** The location of the key, or empty: the cuckoo filter answers most misses without the map. */
  Optional<EthTxLocation> find(byte[] key, int offset) {
    lock.readLock().lock();
    try {
      if (!filter.mightContain(key, offset)) {
        return Optional.empty();
      }
      return Optional.ofNullable(exact.get(TxHash.of(key, offset)));
    } finally {
      lock.readLock().unlock();
    }
  }

  boolean contains(TxHash tx) {
    lock.readLock().lock();
    try {
      return exact.containsKey(tx);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** The newest block, or empty. */
  Optional<BlockTxs> last() {
    lock.readLock().lock();
    try {
      return Optional.ofNullable(blocks.peekLast());
    } finally {
      lock.readLock().unlock();
    }
  }

  Optional<BlockTxs> first() {
    lock.readLock().lock();
    try {
      return Optional.ofNullable(blocks.peekFirst());
    } finally {
      lock.readLock().unlock();
    }
  }

  int blockCount() {
    lock.readLock().lock();
    try {
      return blocks.size();
    } finally {
      lock.readLock().unlock();
    }
  }

  int txCount() {
    lock.readLock().lock();
    try {
      return exact.size();
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Appends {@code b}, which must follow the newest block (number and parent hash).
   *
   * @throws IllegalArgumentException if it does not
   */
  void append(BlockTxs b) {
    lock.writeLock().lock();
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
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Removes the newest block (a reorg took it) and its transactions; returns it. */
  BlockTxs removeLast() {
    lock.writeLock().lock();
    try {
      BlockTxs b = blocks.removeLast();
      forget(b);
      return b;
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Removes the blocks below {@code number} (they are in the history now). */
  void removeBelow(long number) {
    lock.writeLock().lock();
    try {
      while (!blocks.isEmpty() && blocks.peekFirst().number() < number) {
        forget(blocks.removeFirst());
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  void clear() {
    lock.writeLock().lock();
    try {
      blocks.clear();
      exact.clear();
      filter = CuckooFilter.forKeys(1 << 12, FINGERPRINT_BITS);
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** The blocks from {@code from} on (inclusive), oldest first. */
  List<BlockTxs> blocksFrom(long from) {
    lock.readLock().lock();
    try {
      return blocks.stream().filter(b -> b.number() >= from).toList();
    } finally {
      lock.readLock().unlock();
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
