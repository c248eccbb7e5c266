package io.bbfindex.ingest.ownindex;

import io.bbfindex.filters.hash.Murmur3;

/**
 * Builds one shard's retrieval structure: slot values such that, for every key, the XOR of its
 * three slots ({@link FuseShape#slot}) is its value. Construction is the binary fuse peeling: count
 * the keys of every slot, repeatedly take a slot held by one key alone (that key's value can be
 * fixed last through that slot) and remove the key from its other two slots, then assign the slots
 * in reverse peeling order. Keys must be distinct (see {@link ShardKeys#removeDuplicates}); a hash
 * that peels badly (two keys sharing all three slots, or a dense core) is retried under another
 * seed, and after {@value #ATTEMPTS_PER_SHAPE} seeds with one more segment, so a build always ends.
 *
 * <p>Memory for {@code n} keys: two ints a slot (1.125 n slots and more for small n) and five bytes
 * a key besides the keys' own arrays, plus the packed result.
 */
final class FuseShardBuilder {

  static final int ATTEMPTS_PER_SHAPE = 32;

  /** The result: the seed that peeled, the shape and the packed slot values. */
  record Built(long seed, FuseShape shape, long[] packed) {}

  private FuseShardBuilder() {}

  /** The seed of the {@code attempt}-th try of shard {@code shard}: deterministic builds. */
  static long seed(int shard, int attempt) {
    return Murmur3.fmix64(((long) shard << 32 | attempt) ^ 0x6f776e696e646578L);
  }

  /**
   * @param keys the shard's distinct keys with their values, each below {@code 2^valueBits}
   */
  static Built build(ShardKeys keys, int shard, int valueBits) {
    Built solved = solve(keys, shard);
    return new Built(solved.seed(), solved.shape(), PackedSlots.pack(solved.packed(), valueBits));
  }

  /**
   * As {@link #build}, with the slots' full 64-bit values unpacked ({@link Built#packed} holds one
   * slot a long): for structures whose values are wider than {@link PackedSlots#MAX_BITS}, such as
   * the pruned blocks' fingerprint parts ({@link FingerprintPartWriter}).
   */
  static Built solve(ShardKeys keys, int shard) {
    FuseShape shape = FuseShape.forKeys(keys.size());
    for (int attempt = 0; ; attempt++) {
      if (attempt > 0 && attempt % ATTEMPTS_PER_SHAPE == 0) {
        shape = shape.grown();
      }
      long seed = seed(shard, attempt);
      long[] slots = tryPeel(keys, shape, seed);
      if (slots.length > 0 || keys.size() == 0) {
        return new Built(seed, shape, slots.length > 0 ? slots : new long[shape.slots()]);
      }
    }
  }

  /** The slot values, or an empty array if the keys do not peel under this seed. */
  private static long[] tryPeel(ShardKeys keys, FuseShape shape, long seed) {
    int n = keys.size();
    int slots = shape.slots();
    // per slot: 4 * (keys in it) + XOR of which of their three slots it is (0, 1, 2)
    int[] count = new int[slots];
    int[] keyXor = new int[slots];
    for (int i = 0; i < n; i++) {
      long h = TxidKeys.hash(keys.k0(i), keys.k1(i), seed);
      for (int j = 0; j < 3; j++) {
        int s = shape.slot(h, j);
        count[s] = (count[s] + 4) ^ j;
        keyXor[s] ^= i;
      }
    }
    int[] queue = new int[slots];
    int queued = 0;
    for (int s = 0; s < slots; s++) {
      if (count[s] >> 2 == 1) {
        queue[queued++] = s;
      }
    }
    int[] order = new int[n];
    byte[] which = new byte[n];
    int peeled = 0;
    while (queued > 0) {
      int s = queue[--queued];
      if (count[s] >> 2 != 1) {
        continue; // its last key was peeled through another slot
      }
      int key = keyXor[s];
      int j = count[s] & 3;
      order[peeled] = key;
      which[peeled++] = (byte) j;
      long h = TxidKeys.hash(keys.k0(key), keys.k1(key), seed);
      for (int other = 0; other < 3; other++) {
        if (other != j) {
          int o = shape.slot(h, other);
          count[o] = (count[o] - 4) ^ other;
          keyXor[o] ^= key;
          if (count[o] >> 2 == 1) {
            queue[queued++] = o;
          }
        }
      }
    }
    if (peeled != n) {
      return new long[0];
    }
    long[] value = new long[slots];
    for (int t = n - 1; t >= 0; t--) {
      int key = order[t];
      int j = which[t];
      long h = TxidKeys.hash(keys.k0(key), keys.k1(key), seed);
      int mine = shape.slot(h, j);
      value[mine] =
          keys.value(key) ^ value[shape.slot(h, (j + 1) % 3)] ^ value[shape.slot(h, (j + 2) % 3)];
    }
    return value;
  }
}
