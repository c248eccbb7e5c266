package io.bbfindex.ingest.ownindex;

/**
 * The value the own index keeps for a txid: where its bytes start on disk, as {@code file <<
 * offsetBits | offset}, {@code offset} the absolute byte offset of the transaction's first byte in
 * {@code blk<file>.dat} ({@code = dataPos + 80 + txOffset}). The block, and with it height, block
 * hash, {@code dataPos} and {@code txOffset}, follows from the node's block index (the block of
 * that file with the highest {@code dataPos} before the offset). A physical position rather than
 * (height, offset in block): blocks never move inside a blk file, so the index needs no table of
 * its own to turn a block number into a block and stays right across reorgs; and on mainnet it is
 * the smaller of the two (about 5,000 files: 13 bits, offsets below 128 MiB: 27 bits; 40 bits in
 * all, against 20 + 22 = 42 for height and offset, and heights pass 2^20 in 2028).
 *
 * <p>The widths are the build's: the fewest bits that hold the largest file number and offset
 * stored.
 */
public record PositionPacking(int fileBits, int offsetBits) {

  public PositionPacking {
    if (fileBits < 0
        || offsetBits < 1
        || offsetBits > 40
        || fileBits + offsetBits > PackedSlots.MAX_BITS) {
      throw new IllegalArgumentException(
          "no position packing of " + fileBits + " file bits and " + offsetBits + " offset bits");
    }
  }

  /** The narrowest packing for files up to {@code maxFile} and offsets up to {@code maxOffset}. */
  static PositionPacking fitting(int maxFile, long maxOffset) {
    return new PositionPacking(bitsFor(maxFile), Math.max(1, bitsFor(maxOffset)));
  }

  private static int bitsFor(long max) {
    return 64 - Long.numberOfLeadingZeros(max);
  }

  /** Bits a value takes in a slot. */
  public int valueBits() {
    return fileBits + offsetBits;
  }

  long pack(int file, long offset) {
    return (long) file << offsetBits | offset;
  }

  int file(long value) {
    return (int) (value >>> offsetBits);
  }

  long offset(long value) {
    return value & ((1L << offsetBits) - 1);
  }
}
