package io.bbfindex.ingest;

/**
 * A block's place in the blk files, (file, dataPos), as the key of {@link NodeIndex}'s position map
 * (every {@code 't'} txindex row resolves through it).
 *
 * <p>Why not a {@code Long}: {@code Long.hashCode} is {@code file ^ dataPos} here, and blocks sit
 * at similar offsets in every file, so thousands of (file, dataPos) pairs share a hash and
 * HashMap's bins degrade to trees (seen in the profile of a 950,000-block open). The value is
 * multiplied by the 64-bit golden ratio and its high half taken (Fibonacci hashing), which mixes
 * every input bit into the bits HashMap indexes with.
 */
final class PositionKey implements Comparable<PositionKey> {

  private static final long GOLDEN = 0x9E37_79B9_7F4A_7C15L;

  /**
   * file in the high half, dataPos in the low one: a blk position fits 32 bits (files < 128 MiB).
   */
  private final long value;

  PositionKey(int file, long dataPos) {
    this.value = ((long) file << 32) | dataPos;
  }

  @Override
  public int hashCode() {
    return (int) ((value * GOLDEN) >>> 32);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PositionKey k && k.value == value;
  }

  @Override
  public int compareTo(PositionKey o) {
    return Long.compare(value, o.value);
  }

  @Override
  public String toString() {
    return (value >>> 32) + ":" + (value & 0xFFFF_FFFFL);
  }
}
