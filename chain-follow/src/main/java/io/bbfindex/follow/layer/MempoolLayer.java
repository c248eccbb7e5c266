package io.bbfindex.follow.layer;

import io.bbfindex.follow.Hash32;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The node's mempool: a cuckoo filter (deletion) over the txids and the exact set behind it. ZMQ
 * {@code A}/{@code R} events add and remove single txids, a connected block removes its own, and a
 * resync replaces the whole set by difference, so a lookup during a resync never misses a txid that
 * was in the mempool before and after it. One writer, any number of readers.
 */
public final class MempoolLayer {
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final Set<Hash32> txids = new HashSet<>();
  private final KeyFilter filter = new KeyFilter();

  public void add(Hash32 txid) {
    lock.writeLock().lock();
    try {
      if (txids.add(txid)) {
        filter.add(txid, txids, txids.size());
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  public void remove(Hash32 txid) {
    lock.writeLock().lock();
    try {
      if (txids.remove(txid)) {
        filter.remove(txid);
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Removes every txid of {@code block} (block inclusion sends no {@code R} event). */
  public void removeAll(Hash32[] block) {
    lock.writeLock().lock();
    try {
      for (Hash32 txid : block) {
        if (txids.remove(txid)) {
          filter.remove(txid);
        }
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * Makes the set exactly {@code now} (a {@code getrawmempool} answer). The filter is rebuilt at
   * the new size when the set grew past what it was sized for, else changed by difference.
   *
   * @return how many txids were added and removed
   */
  public int replaceAll(Collection<Hash32> now) {
    Set<Hash32> target = now instanceof Set<Hash32> s ? s : new HashSet<>(now);
    lock.writeLock().lock();
    try {
      List<Hash32> gone = new ArrayList<>();
      for (Hash32 t : txids) {
        if (!target.contains(t)) {
          gone.add(t);
        }
      }
      for (Hash32 t : gone) {
        txids.remove(t);
        filter.remove(t);
      }
      int added = 0;
      if (target.size() > 2 * Math.max(txids.size(), 1) && target.size() > 4096) {
        // Mostly new (a start, or a long outage): one sized rebuild beats growing step by step.
        added = target.size() - txids.size();
        txids.addAll(target);
        filter.rebuild(txids, txids.size());
      } else {
        for (Hash32 t : target) {
          if (txids.add(t)) {
            filter.add(t, txids, txids.size());
            added++;
          }
        }
      }
      return added + gone.size();
    } finally {
      lock.writeLock().unlock();
    }
  }

  public boolean mightContain(byte[] keys, int offset) {
    lock.readLock().lock();
    try {
      return filter.mightContain(keys, offset);
    } finally {
      lock.readLock().unlock();
    }
  }

  public boolean contains(Hash32 txid) {
    lock.readLock().lock();
    try {
      return txids.contains(txid);
    } finally {
      lock.readLock().unlock();
    }
  }

  public int size() {
    lock.readLock().lock();
    try {
      return txids.size();
    } finally {
      lock.readLock().unlock();
    }
  }

  public double filterLoad() {
    lock.readLock().lock();
    try {
      return filter.load();
    } finally {
      lock.readLock().unlock();
    }
  }
}
