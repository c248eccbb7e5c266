package io.bbfindex.filters.cuckoo;

import static io.bbfindex.filters.Arguments.requireArgument;

import io.bbfindex.filters.MembershipFilter;
import io.bbfindex.filters.hash.Checks;
import io.bbfindex.filters.hash.Murmur3;

/**
 * The cuckoo filter of Fan, Andersen, Kaminsky and Mitzenmacher ("Cuckoo Filter: Practically Better
 * Than Bloom", CoNEXT 2014; seeds 001 and 004): a table of buckets of {@value #SLOTS_PER_BUCKET}
 * fingerprint slots with partial-key cuckoo hashing. Unlike the Bloom filters it supports {@link
 * #remove}.
 *
 * <p><b>Hashing.</b> Murmur3 x64_128 of the key (seed {@code seed}): the primary bucket is {@code
 * i1 = h1 & (B - 1)}; the fingerprint is {@code f} bits from the other lane, {@code fp = 1 + ((h2
 * (2^f - 1)) >>> 64)}, uniform over {@code 1 .. 2^f - 1} because 0 marks an empty slot. The
 * alternate bucket is {@code i2 = i1 ^ (fmix64(fp) & (B - 1))}: a function of the bucket and the
 * fingerprint only, so a fingerprint can move between its two buckets without the key, and the
 * relation is its own inverse ({@code i1 = i2 ^ ...}). This needs a power-of-two bucket count
 * {@code B}. The fingerprint is hashed (seed 001 explains why): {@code i1 ^ fp} would move an 8-bit
 * fingerprint at most 256 buckets away.
 *
 * <p><b>Insert.</b> Into a free slot of {@code i1} or {@code i2}; else evict a random resident of
 * one of them to its own alternate bucket, and so on, at most {@code maxKicks} times (500 as in the
 * paper). Every eviction is recorded; if the chain ends without a free slot, it is undone in
 * reverse (each step was a swap between the table and the fingerprint in hand, so swapping back in
 * reverse order restores every slot), and {@link #add} returns {@code false} with the table exactly
 * as before. No key accepted earlier is ever lost, which a plain kick loop (seed 001's Java
 * version) does not guarantee: it drops the last evicted fingerprint.
 *
 * <p><b>Duplicates and deletion.</b> Adding a key again stores another copy of its fingerprint (so
 * that deleting one copy leaves the others), which is why one key can be added at most {@code 2b =
 * 8} times (seed 001). {@link #remove} deletes one matching fingerprint from {@code i1} or {@code
 * i2}; it must be called only for keys that were added, or it may delete another key's copy. After
 * removing key {@code x}, {@code mightContain(x)} stays true exactly when another stored key has
 * the same fingerprint and bucket pair (sharing one bucket and the fingerprint implies sharing
 * both).
 *
 * <p><b>Model</b> ({@link CuckooFprModel#exact(long, long, int)}): a foreign key passes exactly
 * when a stored key shares its fingerprint and bucket pair, so with {@code eps = 1/(2^f - 1)},
 * {@code FPR = 1 - (1 - eps (2B - 1)/B^2)^n ~ 1 - e^(-8 alpha eps) ~ 8 alpha / 2^f} at load {@code
 * alpha = n/(4B)}. The textbook per-slot form {@code 1 - (1 - eps)^(8 alpha)} ({@link
 * CuckooFprModel#slotBound}) is an upper bound on it.
 *
 * <p>Not thread-safe. Evictions draw from a SplitMix64-style generator seeded by the constructor,
 * so a run is reproducible.
 */
public final class CuckooFilter implements MembershipFilter {

  /** Slots in a bucket ({@code b}). */
  public static final int SLOTS_PER_BUCKET = 4;

  /** Evictions tried before an insert gives up, as in the cuckoo filter paper. */
  public static final int DEFAULT_MAX_KICKS = 500;

  /** The load {@link #forKeys} sizes for; 4-slot buckets reach about 95 % (paper, Table 2). */
  public static final double TARGET_LOAD = 0.95;

  /** Largest bucket count: 2^30 buckets, 2^32 slots. */
  public static final int MAX_BUCKETS = 1 << 30;

  private final PackedFingerprints slots;
  private final int bucketMask;
  private final int fingerprintBits;
  private final int maxKicks;
  private final int seed;
  private final int[] kickBuckets;
  private final byte[] kickSlots;
  private long randomState;
  private long count;

  /**
   * @param bucketCount {@code B}, a power of two from 1 to {@value #MAX_BUCKETS}
   * @param fingerprintBits {@code f}, 4 to 32 (8, 12 and 16 are the usual choices)
   * @param maxKicks evictions before an insert is refused, at least 0
   * @param seed Murmur3 seed; also seeds the eviction choices
   * @throws IllegalArgumentException if an argument is out of range
   */
  public CuckooFilter(int bucketCount, int fingerprintBits, int maxKicks, int seed) {
    requireArgument(
        bucketCount >= 1 && bucketCount <= MAX_BUCKETS && Integer.bitCount(bucketCount) == 1,
        "bucketCount must be a power of two in [1, 2^30]",
        bucketCount);
    requireArgument(
        fingerprintBits >= 4 && fingerprintBits <= 32,
        "fingerprintBits must be in [4, 32]",
        fingerprintBits);
    requireArgument(maxKicks >= 0, "maxKicks must not be negative", maxKicks);
    this.slots = new PackedFingerprints((long) bucketCount * SLOTS_PER_BUCKET, fingerprintBits);
    this.bucketMask = bucketCount - 1;
    this.fingerprintBits = fingerprintBits;
    this.maxKicks = maxKicks;
    this.seed = seed;
    this.kickBuckets = new int[maxKicks];
    this.kickSlots = new byte[maxKicks];
    this.randomState = Murmur3.fmix64(seed ^ 0x9e3779b97f4a7c15L);
  }

  /** {@code CuckooFilter(bucketCount, fingerprintBits, DEFAULT_MAX_KICKS, 0)}. */
  public CuckooFilter(int bucketCount, int fingerprintBits) {
    this(bucketCount, fingerprintBits, DEFAULT_MAX_KICKS, 0);
  }

  /**
   * The smallest power-of-two bucket count that holds {@code expectedKeys} at load at most {@value
   * #TARGET_LOAD}, with {@code fingerprintBits}-bit fingerprints.
   *
   * @throws IllegalArgumentException if that needs more than {@value #MAX_BUCKETS} buckets
   */
  public static CuckooFilter forKeys(long expectedKeys, int fingerprintBits) {
    return new CuckooFilter(bucketsFor(expectedKeys), fingerprintBits);
  }

  /** Power-of-two bucket count for {@code expectedKeys} at load at most {@value #TARGET_LOAD}. */
  public static int bucketsFor(long expectedKeys) {
    requireArgument(expectedKeys > 0, "expectedKeys must be positive", expectedKeys);
    long needed = (long) Math.ceil(expectedKeys / (SLOTS_PER_BUCKET * TARGET_LOAD));
    requireArgument(
        needed <= MAX_BUCKETS, "expectedKeys needs more than 2^30 buckets", expectedKeys);
    return Math.toIntExact(Math.max(1, Long.highestOneBit(needed - 1) << 1));
  }

  /**
   * Inserts the key's fingerprint.
   *
   * @return {@code false} if no free slot was reached within {@code maxKicks} evictions; the table
   *     is then exactly as it was before the call
   */
  @Override
  public boolean add(byte[] keys, int offset) {
    Murmur3.Hash128 h = Murmur3.hashKey(keys, offset, seed);
    long fp = fingerprint(h);
    int i1 = primaryBucket(h);
    int i2 = alternateBucket(i1, fp);
    if (placeInFreeSlot(i1, fp) || placeInFreeSlot(i2, fp)) {
      count++;
      return true;
    }
    long inHand = fp;
    int bucket = (nextRandom() & 1) == 0 ? i1 : i2;
    for (int kick = 0; kick < maxKicks; kick++) {
      int slot = nextRandom() & (SLOTS_PER_BUCKET - 1);
      kickBuckets[kick] = bucket;
      kickSlots[kick] = (byte) slot;
      inHand = swap(bucket, slot, inHand);
      bucket = alternateBucket(bucket, inHand);
      if (placeInFreeSlot(bucket, inHand)) {
        count++;
        return true;
      }
    }
    for (int kick = maxKicks - 1; kick >= 0; kick--) { // undo: same swaps, reverse order
      inHand = swap(kickBuckets[kick], kickSlots[kick], inHand);
    }
    assert inHand == fp : "undo of the kick chain must give back the new fingerprint";
    return false;
  }

  @Override
  public boolean mightContain(byte[] keys, int offset) {
    Murmur3.Hash128 h = Murmur3.hashKey(keys, offset, seed);
    long fp = fingerprint(h);
    int i1 = primaryBucket(h);
    return findSlot(i1, fp) >= 0 || findSlot(alternateBucket(i1, fp), fp) >= 0;
  }

  @Override
  public boolean supportsRemove() {
    return true;
  }

  /**
   * Removes one copy of the key's fingerprint from its two buckets. Call it only for a key that was
   * added (and not yet removed as often): otherwise it may remove another key's fingerprint and
   * make that key a false negative.
   */
  @Override
  public boolean remove(byte[] keys, int offset) {
    Murmur3.Hash128 h = Murmur3.hashKey(keys, offset, seed);
    long fp = fingerprint(h);
    int i1 = primaryBucket(h);
    if (clearSlotHolding(i1, fp) || clearSlotHolding(alternateBucket(i1, fp), fp)) {
      count--;
      return true;
    }
    return false;
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public long bitSize() {
    return bucketCount() * (long) SLOTS_PER_BUCKET * fingerprintBits;
  }

  public int bucketCount() {
    return bucketMask + 1;
  }

  public int fingerprintBits() {
    return fingerprintBits;
  }

  /** Occupied slots over all slots. */
  public double load() {
    return (double) count / ((long) bucketCount() * SLOTS_PER_BUCKET);
  }

  @Override
  public double modelledFpr() {
    return CuckooFprModel.exact(count, bucketCount(), fingerprintBits);
  }

  // ---- hashing, visible to tests that build colliding keys on purpose

  long fingerprint(byte[] keys, int offset) {
    return fingerprint(Murmur3.hashKey(keys, offset, seed));
  }

  int primaryBucket(byte[] keys, int offset) {
    return primaryBucket(Murmur3.hashKey(keys, offset, seed));
  }

  int alternateBucket(int bucket, long fp) {
    return bucket ^ (int) (Murmur3.fmix64(fp) & bucketMask);
  }

  /** A copy of the slot table, for tests that check a refused insert changed nothing. */
  PackedFingerprints copyOfSlots() {
    return slots.copy();
  }

  boolean sameSlots(PackedFingerprints snapshot) {
    return slots.sameContent(snapshot);
  }

  private long fingerprint(Murmur3.Hash128 h) {
    return 1 + Checks.reduce(h.h2(), (1L << fingerprintBits) - 1);
  }

  private int primaryBucket(Murmur3.Hash128 h) {
    return (int) (h.h1() & bucketMask);
  }

  private static long slotIndex(int bucket, int slot) {
    return (long) bucket * SLOTS_PER_BUCKET + slot;
  }

  private int findSlot(int bucket, long fp) {
    for (int s = 0; s < SLOTS_PER_BUCKET; s++) {
      if (slots.get(slotIndex(bucket, s)) == fp) {
        return s;
      }
    }
    return -1;
  }

  private boolean clearSlotHolding(int bucket, long fp) {
    int slot = findSlot(bucket, fp);
    if (slot < 0) {
      return false;
    }
    slots.set(slotIndex(bucket, slot), 0);
    return true;
  }

  private boolean placeInFreeSlot(int bucket, long fp) {
    int free = findSlot(bucket, 0);
    if (free < 0) {
      return false;
    }
    slots.set(slotIndex(bucket, free), fp);
    return true;
  }

  private long swap(int bucket, int slot, long fp) {
    long index = slotIndex(bucket, slot);
    long out = slots.get(index);
    slots.set(index, fp);
    return out;
  }

  /** A Weyl sequence through Murmur3's finaliser (SplitMix64's scheme); picks eviction victims. */
  private int nextRandom() {
    randomState += 0x9e3779b97f4a7c15L;
    return (int) Murmur3.fmix64(randomState);
  }

  @Override
  public String toString() {
    return "CuckooFilter[buckets="
        + bucketCount()
        + ", f="
        + fingerprintBits
        + ", n="
        + count
        + "]";
  }
}
