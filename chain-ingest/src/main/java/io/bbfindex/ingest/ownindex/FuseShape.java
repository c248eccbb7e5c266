package io.bbfindex.ingest.ownindex;

/**
 * The slot array of one binary fuse retrieval shard (Graf &amp; Lemire, "Binary Fuse Filters: Fast
 * and Smaller Than Xor Filters", 2022; 3-wise): {@code segmentCount + 2} segments of {@code
 * segmentLength} slots. A key's 64-bit hash picks a start segment {@code s} in {@code [0,
 * segmentCount)} and one slot in each of the segments {@code s}, {@code s+1}, {@code s+2}; the
 * key's value is the XOR of its three slots. Neighbouring segments overlap, which is what lets the
 * array be only about 1.125 times the key count (a plain 3-wise XOR structure needs 1.23) and still
 * peel in one go with high probability. The sizing rules are those of the reference implementation
 * ({@code binaryfusefilter.h} of FastFilter/xor_singleheader).
 *
 * @param segmentLength slots per segment, a power of two (at most 2^18)
 * @param segmentCount start segments ({@code >= 1}); the array has {@code segmentCount + 2}
 */
record FuseShape(int segmentLength, int segmentCount) {

  /** The largest segment of the reference implementation. */
  static final int MAX_SEGMENT_LENGTH = 1 << 18;

  FuseShape {
    if (segmentLength < 1
        || segmentLength > MAX_SEGMENT_LENGTH
        || Integer.bitCount(segmentLength) != 1
        || segmentCount < 1
        || (long) (segmentCount + 2) * segmentLength > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "no fuse shape of " + segmentCount + " segments of " + segmentLength + " slots");
    }
  }

  /** The reference implementation's shape for {@code keys} keys. */
  static FuseShape forKeys(int keys) {
    int segmentLength =
        keys == 0 ? 4 : 1 << (int) Math.floor(Math.log(keys) / Math.log(3.33) + 2.25);
    segmentLength = Math.max(4, Math.min(segmentLength, MAX_SEGMENT_LENGTH));
    double sizeFactor =
        keys <= 1 ? 0 : Math.max(1.125, 0.875 + 0.25 * Math.log(1e6) / Math.log(keys));
    long capacity = Math.round(keys * sizeFactor);
    long segments = (capacity + segmentLength - 1) / segmentLength - 2;
    return new FuseShape(segmentLength, (int) Math.max(1, segments));
  }

  /** A shape one start segment larger: the fallback when a shard will not peel. */
  FuseShape grown() {
    return new FuseShape(segmentLength, segmentCount + 1);
  }

  /** Slots in the array. */
  int slots() {
    return (segmentCount + 2) * segmentLength;
  }

  /**
   * The slot of the {@code index}-th (0, 1, 2) of a hash's three: the start slot comes from the
   * hash's high bits scaled to {@code segmentCount * segmentLength} (multiply-shift, no modulo),
   * the other two are one and two segments on, moved inside their segment by two other slices of
   * the hash.
   */
  int slot(long hash, int index) {
    int h0 = (int) Math.unsignedMultiplyHigh(hash, (long) segmentCount * segmentLength);
    int mask = segmentLength - 1;
    return switch (index) {
      case 0 -> h0;
      case 1 -> (h0 + segmentLength) ^ ((int) (hash >>> 18) & mask);
      default -> (h0 + 2 * segmentLength) ^ ((int) hash & mask);
    };
  }
}
