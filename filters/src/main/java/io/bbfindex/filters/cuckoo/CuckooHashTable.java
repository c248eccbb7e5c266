package io.bbfindex.filters.cuckoo;

import static io.bbfindex.filters.Arguments.requireArgument;

import io.bbfindex.filters.hash.Murmur3;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * A bucketized cuckoo hash table (Pagh and Rodler's cuckoo hashing with 4-slot buckets, as in MemC3
 * and libcuckoo; seeds 003 and 004) mapping 32-byte keys to {@code long} values. Unlike the filters
 * it stores whole keys, so it answers exactly.
 *
 * <p><b>Layout.</b> {@code B} buckets (a power of two) of {@value #SLOTS_PER_BUCKET} slots; slot
 * {@code s} of bucket {@code b} keeps its key as four little-endian {@code long}s at {@code
 * keyWords[4 (4b + s) ..]}, its value at {@code values[4b + s]}, and bit {@code s} of {@code
 * used[b]} says whether it is occupied (an all-zero key is a valid key).
 *
 * <p><b>Two choices.</b> Murmur3 x64_128 of the key with the table's seed: {@code b1 = h1 & (B -
 * 1)}, {@code b2 = h2 & (B - 1)}, and {@code b2 = b1 ^ 1} when they coincide (so every key has two
 * buckets once {@code B >= 2}). A lookup reads at most those two buckets.
 *
 * <p><b>Insert: bounded breadth-first path search</b> (seed 003, section 1.6; libcuckoo). If both
 * buckets are full, search breadth-first from them for a chain of at most {@value #MAX_PATH_LENGTH}
 * evictions that ends in a free slot, visiting at most {@value #MAX_SEARCH_NODES} buckets and never
 * the same bucket twice on one chain. The chain is then carried out from its free end backwards, so
 * every step moves an entry into an empty slot of its other bucket: no entry is ever out of the
 * table, and a failed search changes nothing. Breadth first keeps chains short where a random
 * walk's grow long (seed 003, section 1.5).
 *
 * <p><b>Grow and rehash, bounded</b> (the traps of seed 004). When the search fails the table
 * doubles and every entry, and the new key, is re-placed; if that gets stuck, it is retried with a
 * new seed at most {@value #REHASH_ATTEMPTS_PER_SIZE} times, then the table doubles again, up to
 * {@code maxBuckets}, after which {@link #put} throws and leaves the table as it was. Rehashing
 * builds a new table and installs it only when complete, so a failed attempt loses nothing.
 * Duplicates, the trap seed 004 fell into (a key inserted twice collides with itself in every table
 * size, and rehash recursed until memory ran out), cannot arise: {@link #put} looks the key up
 * first and updates the value in place, and a rehash only moves the table's distinct keys.
 *
 * <p>Not thread-safe.
 */
public final class CuckooHashTable {

  /** Slots in a bucket. */
  public static final int SLOTS_PER_BUCKET = 4;

  /** Most evictions in one insert's path (libcuckoo uses 5). */
  public static final int MAX_PATH_LENGTH = 5;

  /** Most buckets one path search looks at. */
  public static final int MAX_SEARCH_NODES = 1024;

  /** New seeds tried at one table size before doubling again. */
  public static final int REHASH_ATTEMPTS_PER_SIZE = 3;

  /**
   * Bound on the bucket count: 2^26 buckets, 2^28 entries (8 GiB of keys), the most whose key words
   * ({@code 16} longs a bucket) still index a {@code long[]}.
   */
  public static final int MAX_BUCKETS = 1 << 26;

  private static final int WORDS_PER_KEY = 4;
  private static final int FULL = (1 << SLOTS_PER_BUCKET) - 1;

  /** How a key's four words and a seed become the two lanes the bucket choices come from. */
  @FunctionalInterface
  interface KeyHasher {
    Murmur3.Hash128 hash(long w0, long w1, long w2, long w3, int seed);
  }

  /** Receives every entry of {@link #forEach}; {@code key} is a fresh 32-byte array. */
  @FunctionalInterface
  public interface EntryConsumer {
    void accept(byte[] key, long value);
  }

  private final KeyHasher hasher;
  private final int maxBuckets;
  private Table table;
  private int size;
  private int growCount;
  private int failedRehashCount;

  /**
   * Per-search scratch: node i is bucket {@code nodeBucket[i]}, reached by moving the entry in slot
   * {@code nodeSlot[i]} of node {@code nodeParent[i]}'s bucket (-1 for the two roots).
   */
  private final int[] nodeBucket = new int[MAX_SEARCH_NODES];

  private final int[] nodeParent = new int[MAX_SEARCH_NODES];
  private final int[] nodeSlot = new int[MAX_SEARCH_NODES];
  private final int[] nodeDepth = new int[MAX_SEARCH_NODES];

  /** An empty table for about 64 entries. */
  public CuckooHashTable() {
    this(64, 0);
  }

  /**
   * @param initialCapacity entries the first table holds (rounded up to whole power-of-two
   *     buckets); the table grows past it as needed
   * @param seed Murmur3 seed of the first table
   * @throws IllegalArgumentException if {@code initialCapacity} is negative or too large
   */
  public CuckooHashTable(int initialCapacity, int seed) {
    this(initialCapacity, seed, Murmur3::hashKey, MAX_BUCKETS);
  }

  /** For tests: any hash (including a degenerate one) and a low bucket bound. */
  CuckooHashTable(int initialCapacity, int seed, KeyHasher hasher, int maxBuckets) {
    requireArgument(
        maxBuckets >= 1 && maxBuckets <= MAX_BUCKETS && Integer.bitCount(maxBuckets) == 1,
        "maxBuckets must be a power of two in [1, 2^26]",
        maxBuckets);
    requireArgument(
        initialCapacity >= 0 && Math.ceilDiv(initialCapacity, SLOTS_PER_BUCKET) <= maxBuckets,
        "initialCapacity must be in [0, 4 * maxBuckets]",
        initialCapacity);
    this.hasher = Objects.requireNonNull(hasher, "hasher");
    this.maxBuckets = maxBuckets;
    int buckets =
        Math.max(
            1,
            Integer.highestOneBit(
                Math.max(1, Math.ceilDiv(initialCapacity, SLOTS_PER_BUCKET)) * 2 - 1));
    this.table = new Table(buckets, seed);
  }

  /**
   * Maps the key at {@code keys[offset .. offset + 32)} to {@code value}.
   *
   * @return the value the key had, or empty if it is new
   * @throws IllegalStateException if the key cannot be placed even in a table of {@code maxBuckets}
   *     buckets under several seeds (the table is at its bound and full, or the hash is
   *     degenerate); the table is then unchanged
   */
  public OptionalLong put(byte[] keys, int offset, long value) {
    Objects.checkFromIndexSize(offset, 32, keys.length);
    long w0 = Murmur3.keyWord(keys, offset, 0);
    long w1 = Murmur3.keyWord(keys, offset, 1);
    long w2 = Murmur3.keyWord(keys, offset, 2);
    long w3 = Murmur3.keyWord(keys, offset, 3);
    int slot = table.find(hasher, w0, w1, w2, w3);
    if (slot >= 0) { // an update, never a second copy: the duplicate trap of seed 004
      long old = table.values[slot];
      table.values[slot] = value;
      return OptionalLong.of(old);
    }
    if (!place(table, w0, w1, w2, w3, value) && !growWith(w0, w1, w2, w3, value)) {
      throw new IllegalStateException(
          "cuckoo hash table cannot place a key in "
              + maxBuckets
              + " buckets (the bound) under "
              + REHASH_ATTEMPTS_PER_SIZE
              + " seeds; its bucket choices collide with too many keys");
    }
    size++;
    return OptionalLong.empty();
  }

  /** The value of the key at {@code keys[offset ..]}, or empty. */
  public OptionalLong get(byte[] keys, int offset) {
    int slot = findSlot(keys, offset);
    return slot < 0 ? OptionalLong.empty() : OptionalLong.of(table.values[slot]);
  }

  /** The value of the key, or {@code defaultValue}; allocates nothing. */
  public long getOrDefault(byte[] keys, int offset, long defaultValue) {
    int slot = findSlot(keys, offset);
    return slot < 0 ? defaultValue : table.values[slot];
  }

  public boolean containsKey(byte[] keys, int offset) {
    return findSlot(keys, offset) >= 0;
  }

  /**
   * Removes the key.
   *
   * @return the value it had, or empty if it was absent
   */
  public OptionalLong remove(byte[] keys, int offset) {
    int slot = findSlot(keys, offset);
    if (slot < 0) {
      return OptionalLong.empty();
    }
    table.used[slot / SLOTS_PER_BUCKET] &= (byte) ~(1 << (slot % SLOTS_PER_BUCKET));
    size--;
    return OptionalLong.of(table.values[slot]);
  }

  /** Entries in the table. */
  public int size() {
    return size;
  }

  public int bucketCount() {
    return table.mask + 1;
  }

  /** Entries over slots. */
  public double loadFactor() {
    return (double) size / ((long) bucketCount() * SLOTS_PER_BUCKET);
  }

  /** Times the table has doubled (or more) since it was made. */
  public int growCount() {
    return growCount;
  }

  /** Rehash attempts that got stuck and were thrown away. */
  public int failedRehashCount() {
    return failedRehashCount;
  }

  /** Calls {@code action} once for every entry, in table order. */
  public void forEach(EntryConsumer action) {
    Table t = table;
    for (int slot = 0; slot < t.values.length; slot++) {
      if (t.isUsed(slot)) {
        byte[] key = new byte[32];
        for (int w = 0; w < WORDS_PER_KEY; w++) {
          Murmur3.putKeyWord(key, 0, w, t.keyWords[slot * WORDS_PER_KEY + w]);
        }
        action.accept(key, t.values[slot]);
      }
    }
  }

  private int findSlot(byte[] keys, int offset) {
    Objects.checkFromIndexSize(offset, 32, keys.length);
    return table.find(
        hasher,
        Murmur3.keyWord(keys, offset, 0),
        Murmur3.keyWord(keys, offset, 1),
        Murmur3.keyWord(keys, offset, 2),
        Murmur3.keyWord(keys, offset, 3));
  }

  /**
   * Doubles the table (then doubles again if needed) and re-places every entry plus the new one,
   * trying at most {@value #REHASH_ATTEMPTS_PER_SIZE} seeds per size (a table that takes the old
   * entries but not the new key counts as a failed attempt, so a seed under which the new key
   * collides is changed rather than doubled around forever); installs the first complete table.
   *
   * @return {@code false} if no table up to {@code maxBuckets} worked; the old one is kept
   */
  private boolean growWith(long w0, long w1, long w2, long w3, long value) {
    Table old = table;
    int seed = old.seed;
    for (long buckets = 2L * (old.mask + 1); buckets <= maxBuckets; buckets *= 2) {
      for (int attempt = 0; attempt < REHASH_ATTEMPTS_PER_SIZE; attempt++) {
        Table next = new Table((int) buckets, seed);
        if (rehashInto(old, next) && place(next, w0, w1, w2, w3, value)) {
          table = next;
          growCount++;
          return true;
        }
        failedRehashCount++;
        seed = (int) Murmur3.fmix64(seed + 0x9e3779b97f4a7c15L);
      }
    }
    return false;
  }

  private boolean rehashInto(Table from, Table to) {
    for (int slot = 0; slot < from.values.length; slot++) {
      if (from.isUsed(slot)) {
        int at = slot * WORDS_PER_KEY;
        long[] k = from.keyWords;
        // The keys of one table are distinct, so no duplicate check is needed (or wanted) here.
        if (!place(to, k[at], k[at + 1], k[at + 2], k[at + 3], from.values[slot])) {
          return false;
        }
      }
    }
    return true;
  }

  /** Puts a key known to be absent into {@code t}: a free slot, or a path search. */
  private boolean place(Table t, long w0, long w1, long w2, long w3, long value) {
    Murmur3.Hash128 h = hasher.hash(w0, w1, w2, w3, t.seed);
    int b1 = t.firstBucket(h);
    int b2 = t.secondBucket(h, b1);
    if (t.used[b1] != FULL) {
      t.store(b1, Integer.numberOfTrailingZeros(~t.used[b1]), w0, w1, w2, w3, value);
      return true;
    }
    if (t.used[b2] != FULL) {
      t.store(b2, Integer.numberOfTrailingZeros(~t.used[b2]), w0, w1, w2, w3, value);
      return true;
    }
    int nodes = 0;
    nodeBucket[nodes] = b1;
    nodeParent[nodes] = -1;
    nodeDepth[nodes++] = 0;
    if (b2 != b1) {
      nodeBucket[nodes] = b2;
      nodeParent[nodes] = -1;
      nodeDepth[nodes++] = 0;
    }
    for (int head = 0; head < nodes; head++) {
      int bucket = nodeBucket[head];
      for (int s = 0; s < SLOTS_PER_BUCKET; s++) {
        int other = t.otherBucket(bucket * SLOTS_PER_BUCKET + s, bucket, hasher);
        if (t.used[other] != FULL) {
          int free = Integer.numberOfTrailingZeros(~t.used[other]);
          int vacated = movePathInto(t, head, s, other, free);
          t.store(nodeBucket[vacated >>> 8], vacated & 0xff, w0, w1, w2, w3, value);
          return true;
        }
        if (nodes < MAX_SEARCH_NODES
            && nodeDepth[head] + 1 < MAX_PATH_LENGTH
            && !onChain(head, other)) {
          nodeBucket[nodes] = other;
          nodeParent[nodes] = head;
          nodeSlot[nodes] = s;
          nodeDepth[nodes++] = nodeDepth[head] + 1;
        }
      }
    }
    return false;
  }

  /** Whether {@code bucket} is node {@code node}'s bucket or one of its ancestors'. */
  private boolean onChain(int node, int bucket) {
    for (int n = node; n >= 0; n = nodeParent[n]) {
      if (nodeBucket[n] == bucket) {
        return true;
      }
    }
    return false;
  }

  /**
   * Carries out the chain ending at node {@code last}: its slot {@code lastSlot} moves to the free
   * slot {@code freeSlot} of bucket {@code target}, then each ancestor's entry into the slot just
   * vacated below it.
   *
   * @return the root node and the slot left free in its bucket, as {@code node << 8 | slot}
   */
  private int movePathInto(Table t, int last, int lastSlot, int target, int freeSlot) {
    int node = last;
    int slot = lastSlot;
    t.move(nodeBucket[node] * SLOTS_PER_BUCKET + slot, target * SLOTS_PER_BUCKET + freeSlot);
    while (nodeParent[node] >= 0) {
      int parent = nodeParent[node];
      int parentSlot = nodeSlot[node];
      t.move(
          nodeBucket[parent] * SLOTS_PER_BUCKET + parentSlot,
          nodeBucket[node] * SLOTS_PER_BUCKET + slot);
      node = parent;
      slot = parentSlot;
    }
    return node << 8 | slot;
  }

  /** One table generation: the arrays and the seed their bucket choices were computed with. */
  private static final class Table {
    final long[] keyWords;
    final long[] values;
    final byte[] used;
    final int mask;
    final int seed;

    Table(int buckets, int seed) {
      this.keyWords = new long[buckets * SLOTS_PER_BUCKET * WORDS_PER_KEY];
      this.values = new long[buckets * SLOTS_PER_BUCKET];
      this.used = new byte[buckets];
      this.mask = buckets - 1;
      this.seed = seed;
    }

    int firstBucket(Murmur3.Hash128 h) {
      return (int) (h.h1() & mask);
    }

    int secondBucket(Murmur3.Hash128 h, int first) {
      int b = (int) (h.h2() & mask);
      return b == first ? (first ^ 1) & mask : b;
    }

    /** The bucket of the entry in {@code slot} (which lives in {@code bucket}) other than it. */
    int otherBucket(int slot, int bucket, KeyHasher hasher) {
      int at = slot * WORDS_PER_KEY;
      Murmur3.Hash128 h =
          hasher.hash(keyWords[at], keyWords[at + 1], keyWords[at + 2], keyWords[at + 3], seed);
      int b1 = firstBucket(h);
      int b2 = secondBucket(h, b1);
      return bucket == b1 ? b2 : b1;
    }

    boolean isUsed(int slot) {
      return (used[slot / SLOTS_PER_BUCKET] & (1 << (slot % SLOTS_PER_BUCKET))) != 0;
    }

    /** The slot holding the key, or -1: at most two buckets, eight slots, are read. */
    int find(KeyHasher hasher, long w0, long w1, long w2, long w3) {
      Murmur3.Hash128 h = hasher.hash(w0, w1, w2, w3, seed);
      int b1 = firstBucket(h);
      int slot = findIn(b1, w0, w1, w2, w3);
      return slot >= 0 ? slot : findIn(secondBucket(h, b1), w0, w1, w2, w3);
    }

    private int findIn(int bucket, long w0, long w1, long w2, long w3) {
      int occupied = used[bucket];
      for (int s = 0; s < SLOTS_PER_BUCKET; s++) {
        int slot = bucket * SLOTS_PER_BUCKET + s;
        int at = slot * WORDS_PER_KEY;
        if ((occupied & (1 << s)) != 0
            && keyWords[at] == w0
            && keyWords[at + 1] == w1
            && keyWords[at + 2] == w2
            && keyWords[at + 3] == w3) {
          return slot;
        }
      }
      return -1;
    }

    void store(int bucket, int s, long w0, long w1, long w2, long w3, long value) {
      int slot = bucket * SLOTS_PER_BUCKET + s;
      int at = slot * WORDS_PER_KEY;
      keyWords[at] = w0;
      keyWords[at + 1] = w1;
      keyWords[at + 2] = w2;
      keyWords[at + 3] = w3;
      values[slot] = value;
      used[bucket] |= (byte) (1 << s);
    }

    void move(int fromSlot, int toSlot) {
      System.arraycopy(keyWords, fromSlot * WORDS_PER_KEY, keyWords, toSlot * WORDS_PER_KEY, 4);
      values[toSlot] = values[fromSlot];
      used[toSlot / SLOTS_PER_BUCKET] |= (byte) (1 << (toSlot % SLOTS_PER_BUCKET));
      used[fromSlot / SLOTS_PER_BUCKET] &= (byte) ~(1 << (fromSlot % SLOTS_PER_BUCKET));
    }
  }
}
