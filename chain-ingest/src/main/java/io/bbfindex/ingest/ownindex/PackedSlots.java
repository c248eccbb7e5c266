package io.bbfindex.ingest.ownindex;

/**
 * Slot values of {@code bits} bits each ({@code 1 <= bits <= 56}), packed back to back: slot {@code
 * s} is bits {@code [s * bits, (s + 1) * bits)} of a little-endian bit stream (bit {@code i} is bit
 * {@code i % 8} of byte {@code i / 8}). One long of slack follows the last slot, so a slot is read
 * with a single unaligned 8-byte little-endian load at byte {@code (s * bits) / 8}, shifted right
 * by {@code (s * bits) % 8} and masked: {@code bits + 7 <= 63} is why 56 is the widest.
 */
final class PackedSlots {

  static final int MAX_BITS = 56;

  private PackedSlots() {}

  /** Bytes of {@code slots} slots of {@code bits} bits, slack included (a multiple of 8). */
  static long bytes(long slots, int bits) {
    return ((slots * bits + 63) / 64 + 1) * 8;
  }

  /** Packs {@code values} (each below {@code 2^bits}) into longs, to be written little-endian. */
  static long[] pack(long[] values, int bits) {
    long[] out = new long[Math.toIntExact(bytes(values.length, bits) / 8)];
    for (int s = 0; s < values.length; s++) {
      long bit = (long) s * bits;
      int word = (int) (bit >>> 6);
      int shift = (int) (bit & 63);
      out[word] |= values[s] << shift;
      if (shift + bits > 64) {
        out[word + 1] |= values[s] >>> (64 - shift);
      }
    }
    return out;
  }

  /** The mask of a slot's value. */
  static long mask(int bits) {
    return (1L << bits) - 1;
  }
}
