package io.bbfindex.follow.layer;

import io.bbfindex.ingest.encoding.Hash32;
import java.util.Arrays;
import java.util.Collection;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.StampedLock;

/**
 * The node's mempool: a cuckoo filter (deletion) over the txids and the exact set behind it. ZMQ
 * {@code A}/{@code R} events add and remove single txids, a connected block removes its own, and a
 * resync replaces the whole set by difference. One writer thread (it reads its own set without a
 * lock), any number of readers.
 *
 * <p><b>Negatives never wait for a resync.</b> A negative lookup touches only the filter, and a
 * resync never writes the filter a reader probes: it applies the difference to the exact set, then
 * builds a new filter for that set aside and swaps it in with one reference write. The filter has
 * its own lock, taken for writing only by single events (a few hundred nanoseconds each) and by
 * that swap, so during a resync a probe's optimistic read almost always validates. On a machine
 * with other work the resync's thread can be descheduled for a whole time slice while it holds a
 * lock; with one lock for set and filter (as before 2026-11-28) every lookup then parked for it
 * (bench follow: 17.6 % of the lookup thread's time parked during resyncs on a loaded machine).
 *
 * <p><b>A resync allocates nothing per txid.</b> The set is a {@link TxidTable} (flat arrays) and
 * the difference is computed into reused scratch arrays, so the collector has nothing to copy: a
 * {@code HashSet<Hash32>} of the node's mempool built per resync made young collections of ~25 MB
 * of survivors, which stop the lookup threads too (up to 277 ms each on a loaded machine).
 *
 * <p>A txid in the mempool before and after a resync is never missed by a lookup during it: it
 * stays in the exact set throughout and is in both the old and the new filter.
 */
public final class MempoolLayer {
  /** Set changes applied per write lock by a resync: {@link #contains} waits for at most this. */
  private static final int CHUNK = 256;

  /** A set this many times smaller than its table's capacity gets a smaller table. */
  private static final int SHRINK_FACTOR = 8;

  /** Optimistic probes tried (a single event's write is short) before waiting for the lock. */
  private static final int OPTIMISTIC_TRIES = 8;

  // The exact set: written by the writer under setLock, read by contains() and size() under it.
  private final StampedLock setLock = new StampedLock();
  private final TxidTable txids = new TxidTable();

  // The filter: changed in place under filterLock by single events, replaced whole by a resync.
  // Volatile so that an optimistic reader dereferences only a fully built filter.
  private final StampedLock filterLock = new StampedLock();
  private volatile KeyFilter filter = new KeyFilter();
  private final LongAdder redoneProbes = new LongAdder();

  // A resync's scratch, reused (the writer's only): the new txids, the gone ones, and one bit per
  // slot of the table for "named by the node's answer".
  private byte[] addedKeys = new byte[0];
  private byte[] removedKeys = new byte[0];
  private long[] seenSlots = new long[0];

  public void add(Hash32 txid) {
    byte[] key = txid.internal();
    long stamp = setLock.writeLock();
    boolean fresh;
    try {
      fresh = txids.add(key, 0);
    } finally {
      setLock.unlockWrite(stamp);
    }
    if (!fresh) {
      return;
    }
    boolean full;
    stamp = filterLock.writeLock();
    try {
      full = !filter.tryAdd(key, 0);
    } finally {
      filterLock.unlockWrite(stamp);
    }
    if (full) {
      swapFilter(KeyFilter.holding(txids));
    }
  }

  public void remove(Hash32 txid) {
    removeAll(new Hash32[] {txid});
  }

  /** Removes every txid of {@code block} (block inclusion sends no {@code R} event). */
  public void removeAll(Hash32[] block) {
    byte[] keys = new byte[block.length * Hash32.BYTES];
    for (int i = 0; i < block.length; i++) {
      System.arraycopy(block[i].internal(), 0, keys, i * Hash32.BYTES, Hash32.BYTES);
    }
    boolean[] gone = new boolean[Math.min(CHUNK, block.length)];
    for (int from = 0; from < block.length; from += CHUNK) {
      int n = Math.min(CHUNK, block.length - from);
      long stamp = setLock.writeLock();
      try {
        for (int i = 0; i < n; i++) {
          gone[i] = txids.remove(keys, (from + i) * Hash32.BYTES);
        }
      } finally {
        setLock.unlockWrite(stamp);
      }
      stamp = filterLock.writeLock();
      try {
        for (int i = 0; i < n; i++) {
          if (gone[i]) {
            filter.remove(keys, (from + i) * Hash32.BYTES);
          }
        }
      } finally {
        filterLock.unlockWrite(stamp);
      }
    }
  }

  /** {@link #replaceAll(byte[], int)} of these txids. */
  public int replaceAll(Collection<Hash32> now) {
    byte[] keys = new byte[now.size() * Hash32.BYTES];
    int i = 0;
    for (Hash32 t : now) {
      System.arraycopy(t.internal(), 0, keys, i++ * Hash32.BYTES, Hash32.BYTES);
    }
    return replaceAll(keys, now.size());
  }

  /**
   * Makes the set exactly the {@code count} txids at {@code keys[32 i ..]} (internal order; a
   * {@code getrawmempool} answer). The difference is computed without a lock (only this writer
   * changes the set) and applied to the exact set in place, additions before removals, {@value
   * #CHUNK} per write lock; then a filter for the new set is built aside and swapped in, so
   * negative lookups never wait for the resync (see the class comment).
   *
   * @return how many txids were added and removed
   */
  public int replaceAll(byte[] keys, int count) {
    int added = 0;
    int seenWords = (txids.capacity() + 63) >>> 6;
    if (seenSlots.length < seenWords) {
      seenSlots = new long[seenWords];
    }
    Arrays.fill(seenSlots, 0, seenWords, 0);
    for (int i = 0; i < count; i++) {
      int slot = txids.slotOf(keys, i * Hash32.BYTES);
      if (slot >= 0) {
        seenSlots[slot >>> 6] |= 1L << slot;
      } else {
        addedKeys = append(addedKeys, added++, keys, i * Hash32.BYTES);
      }
    }
    int removed = 0;
    for (int slot = 0; slot < txids.capacity(); slot++) {
      if (txids.isUsed(slot) && (seenSlots[slot >>> 6] & 1L << slot) == 0) {
        removedKeys = append(removedKeys, removed++, txids.slots(), slot * Hash32.BYTES);
      }
    }
    if (added + removed == 0) {
      return 0;
    }
    int changed =
        applyInChunks(addedKeys, added, true) + applyInChunks(removedKeys, removed, false);
    if (txids.capacity() > SHRINK_FACTOR * 2L * Math.max(1, txids.size())) {
      long stamp = setLock.writeLock();
      try {
        txids.trim();
      } finally {
        setLock.unlockWrite(stamp);
      }
    }
    swapFilter(KeyFilter.holding(txids));
    return changed;
  }

  /** Adds or removes the {@code n} keys of {@code keys}; returns how many changed the set. */
  private int applyInChunks(byte[] keys, int n, boolean add) {
    int changed = 0;
    for (int from = 0; from < n; from += CHUNK) {
      long stamp = setLock.writeLock();
      try {
        for (int i = from; i < Math.min(n, from + CHUNK); i++) {
          boolean did =
              add ? txids.add(keys, i * Hash32.BYTES) : txids.remove(keys, i * Hash32.BYTES);
          changed += did ? 1 : 0;
        }
      } finally {
        setLock.unlockWrite(stamp);
      }
    }
    return changed;
  }

  /** {@code buffer} with the key at {@code from[offset ..]} stored as its {@code index}-th. */
  private static byte[] append(byte[] buffer, int index, byte[] from, int offset) {
    byte[] out = buffer;
    if ((index + 1) * Hash32.BYTES > out.length) {
      out = Arrays.copyOf(out, Math.max(64 * Hash32.BYTES, out.length * 2));
    }
    System.arraycopy(from, offset, out, index * Hash32.BYTES, Hash32.BYTES);
    return out;
  }

  private void swapFilter(KeyFilter fresh) {
    long stamp = filterLock.writeLock();
    try {
      filter = fresh;
    } finally {
      filterLock.unlockWrite(stamp);
    }
  }

  /**
   * Filter probe. An optimistic read: no lock write on the hot negative path. A probe that
   * overlapped a write is done again (a cuckoo insert moves fingerprints, so an overlapped probe
   * may have missed one): optimistically a few times, since only a single event's short write or a
   * resync's swap can overlap it, then under the lock.
   */
  public boolean mightContain(byte[] keys, int offset) {
    for (int attempt = 0; attempt < OPTIMISTIC_TRIES; attempt++) {
      long stamp = filterLock.tryOptimisticRead();
      if (stamp != 0) {
        boolean maybe = filter.mightContain(keys, offset);
        if (filterLock.validate(stamp)) {
          return maybe;
        }
      }
      redoneProbes.increment();
      Thread.onSpinWait();
    }
    long stamp = filterLock.readLock();
    try {
      return filter.mightContain(keys, offset);
    } finally {
      filterLock.unlockRead(stamp);
    }
  }

  /** Filter probes done again because a write overlapped them (a diagnostic for the bench). */
  public long redoneProbes() {
    return redoneProbes.sum();
  }

  public boolean contains(Hash32 txid) {
    byte[] key = txid.internal();
    long stamp = setLock.readLock();
    try {
      return txids.contains(key, 0);
    } finally {
      setLock.unlockRead(stamp);
    }
  }

  public int size() {
    long stamp = setLock.readLock();
    try {
      return txids.size();
    } finally {
      setLock.unlockRead(stamp);
    }
  }

  public double filterLoad() {
    long stamp = filterLock.readLock();
    try {
      return filter.load();
    } finally {
      filterLock.unlockRead(stamp);
    }
  }
}
