package io.bbfindex.follow.layer;

import io.bbfindex.ingest.encoding.Hash32;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.StampedLock;

/**
 * The node's mempool: a cuckoo filter (deletion) over the txids and the exact set behind it. ZMQ
 * {@code A}/{@code R} events add and remove single txids, a connected block removes its own, and a
 * resync replaces the whole set by difference, so a lookup during a resync never misses a txid that
 * was in the mempool before and after it. One writer thread (it reads the set without the lock),
 * any number of readers.
 */
public final class MempoolLayer {
  /** Changes applied per write lock by a resync: a reader waits for at most this many. */
  private static final int CHUNK = 256;

  /** A set this many times smaller than the current one gets a filter sized for it. */
  private static final int SHRINK_FACTOR = 8;

  private final StampedLock lock = new StampedLock();
  // Replaced whole by a resync (see replaceAll); guarded by the lock for readers.
  private Set<Hash32> txids = new HashSet<>();
  private KeyFilter filter = new KeyFilter();

  public void add(Hash32 txid) {
    long stamp = lock.writeLock();
    try {
      if (txids.add(txid)) {
        filter.add(txid, txids, txids.size());
      }
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  public void remove(Hash32 txid) {
    long stamp = lock.writeLock();
    try {
      if (txids.remove(txid)) {
        filter.remove(txid);
      }
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /** Removes every txid of {@code block} (block inclusion sends no {@code R} event). */
  public void removeAll(Hash32[] block) {
    removeAll(Arrays.asList(block));
  }

  private void removeAll(List<Hash32> gone) {
    long stamp = lock.writeLock();
    try {
      for (Hash32 txid : gone) {
        if (txids.remove(txid)) {
          filter.remove(txid);
        }
      }
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /**
   * Makes the set exactly {@code now} (a {@code getrawmempool} answer), so that a lookup during it
   * never misses a txid that was in the mempool before and after it. A resync usually changes a
   * small part of the set (what ZMQ events missed): the difference is applied in place, additions
   * before removals, in chunks under the write lock, so a resync allocates little (a garbage
   * collector's pause stops every lookup) and readers wait at most one chunk. When most of the set
   * changes, or the filter would be far from its size, a set and filter sized for {@code now} are
   * built aside (only this writer changes the set, so it reads it without the lock) and swapped in
   * at once.
   *
   * @return how many txids were added and removed
   */
  public int replaceAll(Collection<Hash32> now) {
    Set<Hash32> fresh = now instanceof Set<Hash32> set ? set : new HashSet<>(now);
    List<Hash32> added = new ArrayList<>();
    for (Hash32 t : fresh) {
      if (!txids.contains(t)) {
        added.add(t);
      }
    }
    List<Hash32> removed = new ArrayList<>();
    for (Hash32 t : txids) {
      if (!fresh.contains(t)) {
        removed.add(t);
      }
    }
    int changed = added.size() + removed.size();
    if (changed > fresh.size() / 2 || fresh.size() < txids.size() / SHRINK_FACTOR) {
      swapIn(new HashSet<>(fresh));
    } else {
      for (int from = 0; from < added.size(); from += CHUNK) {
        addChunk(added.subList(from, Math.min(added.size(), from + CHUNK)));
      }
      for (int from = 0; from < removed.size(); from += CHUNK) {
        removeAll(removed.subList(from, Math.min(removed.size(), from + CHUNK)));
      }
    }
    return changed;
  }

  private void swapIn(Set<Hash32> fresh) {
    KeyFilter sized = new KeyFilter();
    sized.rebuild(fresh, fresh.size());
    long stamp = lock.writeLock();
    try {
      txids = fresh;
      filter = sized;
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  private void addChunk(List<Hash32> chunk) {
    long stamp = lock.writeLock();
    try {
      for (Hash32 txid : chunk) {
        if (txids.add(txid)) {
          filter.add(txid, txids, txids.size());
        }
      }
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /**
   * Filter probe. An optimistic read: no lock write on the hot negative path, so lookups do not
   * slow down while a resync writes; a probe that overlapped a write is done again under the lock
   * (a cuckoo insert moves fingerprints, so an overlapped probe may have missed one).
   */
  public boolean mightContain(byte[] keys, int offset) {
    long stamp = lock.tryOptimisticRead();
    boolean maybe = filter.mightContain(keys, offset);
    if (lock.validate(stamp)) {
      return maybe;
    }
    stamp = lock.readLock();
    try {
      return filter.mightContain(keys, offset);
    } finally {
      lock.unlockRead(stamp);
    }
  }

  public boolean contains(Hash32 txid) {
    long stamp = lock.readLock();
    try {
      return txids.contains(txid);
    } finally {
      lock.unlockRead(stamp);
    }
  }

  public int size() {
    long stamp = lock.readLock();
    try {
      return txids.size();
    } finally {
      lock.unlockRead(stamp);
    }
  }

  public double filterLoad() {
    long stamp = lock.readLock();
    try {
      return filter.load();
    } finally {
      lock.unlockRead(stamp);
    }
  }
}
