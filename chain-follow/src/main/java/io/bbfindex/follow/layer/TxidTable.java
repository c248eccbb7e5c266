package io.bbfindex.follow.layer;

import io.bbfindex.ingest.encoding.Hash32;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * An exact set of 32-byte txids in two flat arrays, so that a set of 50,000 is three objects and
 * not 150,000 (a {@code HashSet<Hash32>}'s node, hash and byte array per txid): a mempool resync
 * then allocates nothing per txid and leaves the collector nothing to copy.
 *
 * <p><b>Layout.</b> Open addressing with linear probing over {@code capacity} slots (a power of
 * two): slot {@code i} is {@code keys[32 i .. 32 i + 32)}, and bit {@code i & 63} of {@code used[i
 * >>> 6]} says whether it holds a key (so the all-zero txid is a key like any other). The home slot
 * is the first 8 bytes of the txid (little-endian) times the 64-bit golden ratio, top bits: txids
 * are SHA-256d output, the multiply only spreads a ground prefix. A probe touches one or two
 * 64-byte lines of {@code keys} at a load of at most {@value #MAX_LOAD_PERCENT} %.
 *
 * <p><b>Removal</b> shifts the following keys of the run back (Knuth's algorithm R), so there are
 * no tombstones and a probe never walks further than the run its key hashes into.
 *
 * <p>Not thread-safe: {@link MempoolLayer} guards it.
 */
final class TxidTable {
  private static final int MIN_CAPACITY = 1 << 10;

  /** Grow past this load: linear probing stays at about 2.5 slots per miss. */
  private static final int MAX_LOAD_PERCENT = 50;

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private byte[] keys;
  private long[] used;
  private int mask;
  private int size;

  TxidTable() {
    allocate(MIN_CAPACITY);
  }

  int size() {
    return size;
  }

  int capacity() {
    return mask + 1;
  }

  /** The slots' bytes: slot {@code i} is at {@code 32 i}; see {@link #isUsed}. */
  byte[] slots() {
    return keys;
  }

  boolean isUsed(int slot) {
    return (used[slot >>> 6] & 1L << slot) != 0;
  }

  boolean contains(byte[] key, int offset) {
    return slotOf(key, offset) >= 0;
  }

  /** The slot holding {@code key}, or -1. */
  int slotOf(byte[] key, int offset) {
    for (int i = home(key, offset); isUsed(i); i = (i + 1) & mask) {
      if (sameKey(i, key, offset)) {
        return i;
      }
    }
    return -1;
  }

  /** Adds {@code key}; {@code false} if it was there. May grow (and so move every slot). */
  boolean add(byte[] key, int offset) {
    int i = home(key, offset);
    for (; isUsed(i); i = (i + 1) & mask) {
      if (sameKey(i, key, offset)) {
        return false;
      }
    }
    if ((size + 1) * 100L > (long) capacity() * MAX_LOAD_PERCENT) {
      resize(capacity() * 2);
      return add(key, offset);
    }
    place(i, key, offset);
    size++;
    return true;
  }

  /** Removes {@code key}; {@code false} if it was not there. Moves keys of the same run. */
  boolean remove(byte[] key, int offset) {
    int hole = slotOf(key, offset);
    if (hole < 0) {
      return false;
    }
    // Algorithm R: move back every later key of the run whose home is not in (hole, its slot].
    for (int j = (hole + 1) & mask; isUsed(j); j = (j + 1) & mask) {
      int home = home(keys, j * Hash32.BYTES);
      boolean stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
      if (!stays) {
        System.arraycopy(keys, j * Hash32.BYTES, keys, hole * Hash32.BYTES, Hash32.BYTES);
        hole = j;
      }
    }
    used[hole >>> 6] &= ~(1L << hole);
    size--;
    return true;
  }

  /** Shrinks to the smallest capacity that holds the keys at the target load, if smaller. */
  void trim() {
    int fit = Math.max(MIN_CAPACITY, Integer.highestOneBit(Math.max(1, size * 2 - 1)) << 1);
    if ((long) fit * MAX_LOAD_PERCENT < (long) (size + 1) * 100) {
      fit *= 2;
    }
    if (fit < capacity()) {
      resize(fit);
    }
  }

  private void resize(int capacity) {
    byte[] oldKeys = keys;
    long[] oldUsed = used;
    allocate(capacity);
    for (int w = 0; w < oldUsed.length; w++) {
      for (long bits = oldUsed[w]; bits != 0; bits &= bits - 1) {
        int from = (w << 6 | Long.numberOfTrailingZeros(bits)) * Hash32.BYTES;
        int i = home(oldKeys, from);
        while (isUsed(i)) {
          i = (i + 1) & mask;
        }
        place(i, oldKeys, from);
      }
    }
  }

  private void allocate(int capacity) {
    keys = new byte[capacity * Hash32.BYTES];
    used = new long[Math.max(1, capacity >>> 6)];
    mask = capacity - 1;
  }

  private void place(int slot, byte[] key, int offset) {
    System.arraycopy(key, offset, keys, slot * Hash32.BYTES, Hash32.BYTES);
    used[slot >>> 6] |= 1L << slot;
  }

  private boolean sameKey(int slot, byte[] key, int offset) {
    int at = slot * Hash32.BYTES;
    return Arrays.equals(keys, at, at + Hash32.BYTES, key, offset, offset + Hash32.BYTES);
  }

  private int home(byte[] key, int offset) {
    long first = (long) LONGS.get(key, offset);
    return (int) ((first * 0x9E3779B97F4A7C15L) >>> 32) & mask;
  }
}
