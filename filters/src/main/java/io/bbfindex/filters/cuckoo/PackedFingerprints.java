package io.bbfindex.filters.cuckoo;

import io.bbfindex.filters.hash.Checks;

/**
 * A fixed array of {@code f}-bit unsigned values ({@code 1 <= f <= 32}) packed end to end in a
 * {@code long[]}: value {@code i} occupies bits {@code [i f, (i + 1) f)} of the little-endian bit
 * string, so it straddles two longs when {@code (i f) % 64 + f > 64}. The table costs exactly
 * {@code f} bits a slot (rounded up to whole longs), which is what a cuckoo filter's space claim
 * counts.
 */
final class PackedFingerprints {

  private final long[] words;
  private final int bits;
  private final long mask;

  PackedFingerprints(long slots, int bits) {
    this.bits = bits;
    this.mask = (1L << bits) - 1;
    this.words = new long[Checks.longsForBits(slots * bits, "slots * fingerprintBits")];
  }

  private PackedFingerprints(PackedFingerprints other) {
    this.bits = other.bits;
    this.mask = other.mask;
    this.words = other.words.clone();
  }

  long get(long slot) {
    long bit = slot * bits;
    int w = (int) (bit >>> 6);
    int shift = (int) (bit & 63);
    long value = words[w] >>> shift;
    if (shift + bits > 64) {
      value |= words[w + 1] << (64 - shift);
    }
    return value & mask;
  }

  void set(long slot, long value) {
    long bit = slot * bits;
    int w = (int) (bit >>> 6);
    int shift = (int) (bit & 63);
    words[w] = (words[w] & ~(mask << shift)) | (value << shift);
    if (shift + bits > 64) {
      int high = 64 - shift; // bits of the value that went into words[w]
      words[w + 1] = (words[w + 1] & ~(mask >>> high)) | (value >>> high);
    }
  }

  PackedFingerprints copy() {
    return new PackedFingerprints(this);
  }

  boolean sameContent(PackedFingerprints other) {
    return java.util.Arrays.equals(words, other.words);
  }
}
