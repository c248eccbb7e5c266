package io.bbfindex.eth;

import java.util.BitSet;
import java.util.Collection;

/**
 * Every hash the tip took since this set was built, one bit each, indexed by the hash's leading
 * bits: the tip's first test, in front of its cuckoo filter. Immutable once built; the tip
 * publishes a new one per block.
 *
 * <p>WHY: a negative lookup must ask the tip, and the cuckoo filter's probe (a Murmur3 rehash of
 * the key, then eight packed slots in two buckets) costs about fifteen times a summary-filter
 * probe, most of a negative's time; here it is one load. A Keccak-256 hash is uniform, so its
 * leading bits need no rehash. With {@link #BITS_PER_KEY} bits a key, a key the tip never held
 * finds its bit set about 3% of the time (and then the cuckoo filter answers). Keys only come in:
 * one the tip dropped (promoted to the history, or reorged out) keeps its bit until the set is
 * rebuilt from the tip's keys once it holds {@link #capacity()}, which costs only a cuckoo probe
 * meanwhile.
 */
record SeenKeys(BitSet bits, int log2Bits, long count) {
  /** Bits a key: a false "maybe" for 1 - e^(-1/32), about 3%, of the keys never added. */
  static final int BITS_PER_KEY = 32;

  /** The smallest set: 2^17 bits (16 KiB), 4,096 keys. */
  private static final int MIN_LOG2_BITS = 17;

  /** A set of {@code keys}, sized for twice as many. */
  static SeenKeys of(Collection<TxHash> keys) {
    long wanted = Math.max(1, 2L * keys.size()) * BITS_PER_KEY;
    int log2 = Math.max(MIN_LOG2_BITS, 64 - Long.numberOfLeadingZeros(wanted - 1));
    if (log2 > 30) {
      throw new IllegalStateException(keys.size() + " keys in the tip: more than it is built for");
    }
    BitSet bits = new BitSet(1 << log2);
    for (TxHash k : keys) {
      bits.set(index(k.a(), log2));
    }
    return new SeenKeys(bits, log2, keys.size());
  }

  /**
   * This set and {@code more} in a new set: a copy with their bits, or, once that would hold more
   * than {@link #capacity()}, a new set of {@code all} (the tip's keys, {@code more} among them).
   */
  SeenKeys plus(Collection<TxHash> more, Collection<TxHash> all) {
    if (count + more.size() > capacity()) {
      return of(all);
    }
    BitSet copy = (BitSet) bits.clone();
    for (TxHash k : more) {
      copy.set(index(k.a(), log2Bits));
    }
    return new SeenKeys(copy, log2Bits, count + more.size());
  }

  /** Keys this set takes before it is rebuilt. */
  long capacity() {
    return (1L << log2Bits) / BITS_PER_KEY;
  }

  /** False: the tip never took the key at {@code key[offset .. offset + 32)} while it was built. */
  boolean mightContain(byte[] key, int offset) {
    return bits.get(index(Bytes.getLong(key, offset), log2Bits));
  }

  private static int index(long leadingBytes, int log2Bits) {
    return (int) (leadingBytes >>> (64 - log2Bits));
  }
}
